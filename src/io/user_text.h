// Text from a case file or a tensor file shown in a message. A hostile file must not be able to flood the
// terminal (a 5 MB op name) or forge a line of output (an ESC or newline byte in a name), so every such
// string is capped and has every byte outside printable ASCII written as \xNN.
#ifndef ATBX_IO_USER_TEXT_H
#define ATBX_IO_USER_TEXT_H

#include <cstddef>
#include <string>
#include <string_view>

namespace atbx::io {

constexpr size_t kShownBytes = 80;

// At most `limit` bytes of `text`, bytes outside printable ASCII (and the backslash) as \xNN, "..." and the
// total length after a cut.
std::string Printable(std::string_view text, size_t limit = kShownBytes);

// Printable(text) between double quotes, a quote inside written as \x22.
std::string Quoted(std::string_view text, size_t limit = kShownBytes);

}  // namespace atbx::io

#endif  // ATBX_IO_USER_TEXT_H
