// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0; C order; little-endian). The
// reader is strict: a malformed, truncated or over-long file is an IoError, never a crash or a short read. It
// reads a file's header first and checks the file's size against it before touching the data, which it then
// maps rather than reads (docs/case-files.md).
#ifndef ATBX_IO_NPY_H
#define ATBX_IO_NPY_H

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/tensor_bytes.h"

namespace atbx::io {

class IoError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Largest header atbx reads; NumPy writes a few hundred bytes.
constexpr uint64_t kMaxNpyHeaderBytes = uint64_t{1} << 16;

struct NpyHeader {
    std::string descr;           // NumPy type string, e.g. "<f2", "|i1"
    std::vector<int64_t> shape;  // empty for a 0-d array
    uint64_t dataOffset = 0;     // where the data starts in the file
    uint64_t dataBytes = 0;      // element count x item size
};

struct NpyArray {
    std::string descr;
    std::vector<int64_t> shape;
    TensorBytes data;  // C-order bytes
};

// Size in bytes of one element of a descr ("<f2" -> 2), 0 when the descr is not one atbx reads.
size_t NpyItemSize(const std::string& descr);

// The offset of the data, from the first 10 (version 1) or 12 bytes of a file. Throws IoError for a wrong
// magic, an unknown version or a header longer than kMaxNpyHeaderBytes.
uint64_t NpyDataOffset(std::span<const uint8_t> prefix, const std::string& name);
// Parses the header at the start of `bytes`, which must hold at least the whole header; `name` labels errors.
NpyHeader ParseNpyHeader(std::span<const uint8_t> bytes, const std::string& name);
// Throws IoError unless a file of `fileBytes` bytes holds exactly the data its header describes.
void CheckNpyDataSize(const NpyHeader& header, uint64_t fileBytes, const std::string& name);

// Parses a whole file held in memory (the data is copied); for callers with bytes rather than a file.
NpyArray ParseNpy(std::span<const uint8_t> bytes, const std::string& name);
// Reads the file's header, checks the file's size against it, and maps the data read-only.
NpyArray MapNpy(const std::filesystem::path& path);

// The bytes of a version 1.0 file before its data: magic, version, header length, header.
std::string NpyFileHeader(const std::string& descr, std::span<const int64_t> shape);

}  // namespace atbx::io

#endif  // ATBX_IO_NPY_H
