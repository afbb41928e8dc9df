// StrCat: builds a message from values of any streamable type ("headNum must be > 0, got ", 0), printed as an
// ostream prints them. Text, characters, numbers and plain enums are appended directly: the rules build their
// messages on every Setup, most of them for checks that pass, and an ostringstream per message was a third
// of a decode step's Setup. Other types still go through an ostream.
#ifndef ATBX_CORE_STR_CAT_H
#define ATBX_CORE_STR_CAT_H

#include <charconv>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

namespace atbx::core {
namespace str_cat_detail {

// An unscoped enum (which converts to its underlying type, as an ostream prints it).
template <class T>
constexpr bool PlainEnum() {
    if constexpr (std::is_enum_v<T>) {
        return std::is_convertible_v<T, std::underlying_type_t<T>>;
    } else {
        return false;
    }
}

template <class T>
void Append(std::string& out, const T& value) {
    if constexpr (std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
                  std::is_same_v<T, unsigned char>) {
        out += static_cast<char>(value);  // as an ostream: a character, also for int8_t and uint8_t
    } else if constexpr (std::is_pointer_v<T> && std::is_convertible_v<T, const char*>) {
        if (value != nullptr) out += value;  // an ostream prints nothing for a null string
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
        out += std::string_view(value);
    } else if constexpr (std::is_same_v<T, bool>) {
        out += value ? '1' : '0';
    } else if constexpr (std::is_integral_v<T>) {
        char digits[24];
        out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
    } else if constexpr (std::is_floating_point_v<T>) {
        char digits[40];  // an ostream's default: %g, 6 significant digits
        out.append(digits,
                   std::to_chars(digits, digits + sizeof digits, value, std::chars_format::general, 6).ptr);
    } else if constexpr (PlainEnum<T>()) {
        Append(out, +static_cast<std::underlying_type_t<T>>(value));  // as an ostream: its number
    } else {
        static_assert(!std::is_function_v<T>,
                      "StrCat prints each value alone: stream manipulators have no effect");
        std::ostringstream stream;
        stream << value;
        out += stream.str();
    }
}

}  // namespace str_cat_detail

// Appends the values to `out`, each printed as StrCat prints it.
template <class... Args>
void StrAppend(std::string& out, const Args&... args) {
    (str_cat_detail::Append(out, args), ...);
}

template <class... Args>
std::string StrCat(const Args&... args) {
    std::string out;
    StrAppend(out, args...);
    return out;
}

}  // namespace atbx::core

#endif  // ATBX_CORE_STR_CAT_H
