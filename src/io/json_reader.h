// Case-file JSON, parsed so that hostile text cannot crash the reader or hide a value: nesting is bounded
// (nlohmann's copy, comparison, dump and destruction recurse per level, so 100k levels overflow the stack), a
// key repeated in one object is an error (nlohmann silently keeps the last one), and every syntax or number
// range error is an IoError naming the file and the field path where it happened.
#ifndef ATBX_IO_JSON_READER_H
#define ATBX_IO_JSON_READER_H

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace atbx::io {

// A case file needs 4 levels (root, inputs, an entry, its shape); 32 leaves room for any sane extension.
constexpr size_t kMaxJsonDepth = 32;

// A JSON value as a message shows it, never serialising a container: a number or literal as written, a string
// quoted and capped (user_text.h), "an array of 3 values", "an object with 2 keys".
std::string DescribeJson(const nlohmann::json& value);

// Parses `text`; `name` (the file) labels errors. Throws IoError.
nlohmann::json ParseBoundedJson(std::span<const uint8_t> text, const std::string& name);

}  // namespace atbx::io

#endif  // ATBX_IO_JSON_READER_H
