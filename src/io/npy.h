// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0; C order; little-endian). The
// reader is strict: a malformed, truncated or over-long file is an IoError, never a crash or a short read.
#ifndef ATBX_IO_NPY_H
#define ATBX_IO_NPY_H

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace atbx::io {

class IoError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct NpyArray {
    std::string descr;           // NumPy type string, e.g. "<f2", "|i1"
    std::vector<int64_t> shape;  // empty for a 0-d array
    std::vector<uint8_t> data;   // C-order bytes
};

// Size in bytes of one element of a descr ("<f2" -> 2), 0 when the descr is not one atbx reads.
size_t NpyItemSize(const std::string& descr);

NpyArray ReadNpy(const std::filesystem::path& path);
// Parses a whole file's bytes (what ReadNpy reads); `name` labels errors.
NpyArray ParseNpy(std::span<const uint8_t> bytes, const std::string& name);

// Writes a version 1.0 file.
void WriteNpy(const std::filesystem::path& path, const std::string& descr, std::span<const int64_t> shape,
              std::span<const uint8_t> data);

}  // namespace atbx::io

#endif  // ATBX_IO_NPY_H
