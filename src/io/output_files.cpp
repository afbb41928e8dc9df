#include "io/output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <random>
#include <set>
#include <string_view>

#include "core/str_cat.h"
#include "io/npy.h"
#include "io/paths.h"
#include "io/user_text.h"

namespace atbx::io {
namespace {

using core::StrCat;

std::string Shown(const std::filesystem::path& path) {
    return Printable(path.string(), 300);
}

void WriteAll(int fd, const uint8_t* data, size_t size, const std::filesystem::path& path) {
    while (size > 0) {
        const ssize_t wrote = ::write(fd, data, size);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) throw IoError(StrCat(Shown(path), ": write error: ", std::strerror(errno)));
        data += wrote;
        size -= static_cast<size_t>(wrote);
    }
}

// Creates a new file with a random name in `dir` (O_EXCL: never an existing one) and writes the tensor to it.
std::filesystem::path WriteTemporary(const HostTensor& tensor, const std::filesystem::path& dir,
                                     std::mt19937_64& rng) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        char hex[24];
        const std::string_view name(hex, std::to_chars(hex, hex + sizeof hex, rng(), 16).ptr);
        const std::filesystem::path path = dir / StrCat(".atbx-output-", name, ".partial");
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) throw IoError(StrCat(Shown(path), ": cannot create: ", std::strerror(errno)));
        try {
            const std::vector<int64_t> shape(tensor.desc.shape.dims,
                                             tensor.desc.shape.dims + tensor.desc.shape.dimNum);
            const std::string header = NpyFileHeader(NpyDescr(tensor.desc.dtype), shape);
            WriteAll(fd, reinterpret_cast<const uint8_t*>(header.data()), header.size(), path);
            WriteAll(fd, tensor.bytes.data(), tensor.bytes.size(), path);
        } catch (...) {
            ::close(fd);
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
            throw;
        }
        if (::close(fd) != 0) {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
            throw IoError(StrCat(Shown(path), ": write error: ", std::strerror(errno)));
        }
        return path;
    }
    throw IoError(StrCat(Shown(dir), ": cannot find a free temporary file name"));
}

// Every target is a new name or an existing regular file, and no name is listed twice.
void CheckTargets(std::span<const std::string> names, const std::filesystem::path& dir) {
    std::set<std::string> seen;
    for (const std::string& name : names) {
        CheckOutputName(name, "outputs");
        if (!seen.insert(name).second)
            throw IoError(StrCat("outputs: the file ", Quoted(name), " is listed twice"));
        struct stat info {};
        const std::filesystem::path target = dir / name;
        if (::lstat(target.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
            throw IoError(StrCat(Shown(target),
                                 " exists and is not a regular file (a symlink, folder or device); atbx "
                                 "replaces only regular files"));
        }
    }
}

}  // namespace

void WriteOutputs(std::span<const std::string> names, const std::vector<HostTensor>& outputs,
                  const std::filesystem::path& dir) {
    if (names.size() != outputs.size()) {
        throw IoError(StrCat("outputs: ", names.size(), " file names for ", outputs.size(), " outputs"));
    }
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    const std::filesystem::path folder = std::filesystem::canonical(dir, error);
    if (error) throw IoError(StrCat(Shown(dir), ": cannot create the output folder: ", error.message()));
    CheckTargets(names, folder);

    std::mt19937_64 rng(std::random_device{}());
    std::vector<std::filesystem::path> temporaries;
    const auto removeTemporaries = [&](size_t from) {
        std::error_code ignored;
        for (size_t i = from; i < temporaries.size(); ++i)
            std::filesystem::remove(temporaries[i], ignored);
    };
    try {
        for (const HostTensor& output : outputs)
            temporaries.push_back(WriteTemporary(output, folder, rng));
    } catch (...) {
        removeTemporaries(0);
        throw;
    }
    for (size_t i = 0; i < temporaries.size(); ++i) {
        if (::rename(temporaries[i].c_str(), (folder / names[i]).c_str()) != 0) {
            const int cause = errno;
            removeTemporaries(i);
            throw IoError(StrCat(Shown(folder / names[i]), ": cannot replace: ", std::strerror(cause), " (",
                                 i, " of ", names.size(), " outputs were already written)"));
        }
    }
}

}  // namespace atbx::io
