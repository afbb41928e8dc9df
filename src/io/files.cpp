#include "io/files.h"

#include <fstream>

#include "core/str_cat.h"
#include "io/npy.h"

namespace atbx::io {

std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        throw IoError(core::StrCat(
            path.string(), std::filesystem::exists(path, error) ? ": not a regular file" : ": cannot open"));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError(core::StrCat(path.string(), ": cannot open"));
    // Read in chunks: byte-wise stream iteration dominated debug-build runs on large caches.
    std::vector<uint8_t> bytes;
    constexpr size_t kChunk = size_t{1} << 20;
    while (in) {
        const size_t size = bytes.size();
        bytes.resize(size + kChunk);
        in.read(reinterpret_cast<char*>(bytes.data() + size), static_cast<std::streamsize>(kChunk));
        bytes.resize(size + static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) throw IoError(core::StrCat(path.string(), ": read error"));
    return bytes;
}

}  // namespace atbx::io
