// Reading files without trusting them: a file is opened once, checked to be a regular file through its open
// descriptor (a FIFO or a device cannot stall or flood the reader), and either read whole up to a size bound
// or memory-mapped read-only and private, so its pages are read only when something reads them.
#ifndef ATBX_IO_FILES_H
#define ATBX_IO_FILES_H

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace atbx::io {

// An open regular file (read-only).
class RegularFile {
  public:
    // Throws IoError when the path is missing, is not a regular file (a directory, say) or cannot be opened.
    explicit RegularFile(const std::filesystem::path& path);
    ~RegularFile();
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;

    uint64_t size() const { return size_; }
    // Reads exactly out.size() bytes at `offset`; throws IoError when the file is shorter.
    void ReadAt(uint64_t offset, std::span<uint8_t> out) const;
    const std::string& name() const { return name_; }
    int descriptor() const { return fd_; }

  private:
    int fd_ = -1;
    uint64_t size_ = 0;
    std::string name_;  // the path as messages show it
};

// A read-only private mapping of a whole file; unmapped on destruction. Reading a page of a file that another
// process truncated after the mapping was made raises SIGBUS: case files are not meant to change under a run.
class MappedFile {
  public:
    explicit MappedFile(const RegularFile& file);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const uint8_t> bytes() const { return {data_, size_}; }

  private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

// A whole file's bytes; throws IoError as RegularFile does, and when the file is larger than `maxBytes`.
std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path, uint64_t maxBytes);

}  // namespace atbx::io

#endif  // ATBX_IO_FILES_H
