// Reading whole files: a regular file's bytes, or an IoError that says why not.
#ifndef ATBX_IO_FILES_H
#define ATBX_IO_FILES_H

#include <cstdint>
#include <filesystem>
#include <vector>

namespace atbx::io {

// Throws IoError when the path is missing, is not a regular file (a directory, say) or cannot be read.
std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path);

}  // namespace atbx::io

#endif  // ATBX_IO_FILES_H
