#include "io/user_text.h"

#include "core/str_cat.h"

namespace atbx::io {
namespace {

std::string Escaped(std::string_view text, size_t limit, bool escapeQuote) {
    constexpr char kHex[] = "0123456789abcdef";
    std::string shown;
    for (size_t i = 0; i < text.size() && i < limit; ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        const bool plain = byte >= 0x20 && byte < 0x7F && byte != '\\' && !(escapeQuote && byte == '"');
        if (plain) {
            shown += static_cast<char>(byte);
        } else {
            shown += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
        }
    }
    if (text.size() > limit) shown += core::StrCat("... (", text.size(), " bytes)");
    return shown;
}

}  // namespace

std::string Printable(std::string_view text, size_t limit) {
    return Escaped(text, limit, false);
}

std::string Quoted(std::string_view text, size_t limit) {
    return '"' + Escaped(text, limit, true) + '"';
}

}  // namespace atbx::io
