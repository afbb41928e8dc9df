#include "io/files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/str_cat.h"
#include "io/npy.h"
#include "io/user_text.h"

namespace atbx::io {

using core::StrCat;

RegularFile::RegularFile(const std::filesystem::path& path) : name_(Printable(path.string(), 300)) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below then rejects it.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) {
        const bool missing = errno == ENOENT || errno == ENOTDIR;
        throw IoError(StrCat(name_, missing ? ": cannot open (no such file)" : ": cannot open: ",
                             missing ? "" : std::strerror(errno)));
    }
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd_);
        throw IoError(StrCat(name_, ": not a regular file"));
    }
    size_ = static_cast<uint64_t>(info.st_size);
}

RegularFile::~RegularFile() {
    ::close(fd_);
}

void RegularFile::ReadAt(uint64_t offset, std::span<uint8_t> out) const {
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t got =
            ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw IoError(StrCat(name_, ": read error: ", std::strerror(errno)));
        if (got == 0) throw IoError(StrCat(name_, ": file ends early (it changed while being read?)"));
        done += static_cast<size_t>(got);
    }
}

MappedFile::MappedFile(const RegularFile& file) : size_(file.size()) {
    if (size_ == 0) return;
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.descriptor(), 0);
    if (mapped == MAP_FAILED) throw IoError(StrCat(file.name(), ": cannot map: ", std::strerror(errno)));
    data_ = static_cast<const uint8_t*>(mapped);
}

MappedFile::~MappedFile() {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path, uint64_t maxBytes) {
    const RegularFile file(path);
    if (file.size() > maxBytes) {
        throw IoError(StrCat(file.name(), ": ", file.size(), " bytes, more than the ", maxBytes,
                             " bytes allowed for this file"));
    }
    std::vector<uint8_t> bytes(file.size());
    file.ReadAt(0, bytes);
    return bytes;
}

}  // namespace atbx::io
