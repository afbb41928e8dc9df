// The bytes of a tensor read from a file: a window of a read-only private mapping of the file (pages are read
// only when something reads them), or an owned copy. Copies share the bytes.
#ifndef ATBX_IO_TENSOR_BYTES_H
#define ATBX_IO_TENSOR_BYTES_H

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "io/files.h"

namespace atbx::io {

class TensorBytes {
  public:
    TensorBytes() = default;
    explicit TensorBytes(std::vector<uint8_t> owned) {
        auto bytes = std::make_shared<const std::vector<uint8_t>>(std::move(owned));
        view_ = std::span<const uint8_t>(*bytes);
        keeper_ = std::move(bytes);
    }
    // `size` bytes at `offset` of the mapping, which must hold them.
    TensorBytes(std::shared_ptr<const MappedFile> file, uint64_t offset, uint64_t size)
        : keeper_(file), view_(file->bytes().subspan(offset, size)) {}

    std::span<const uint8_t> span() const { return view_; }

  private:
    std::shared_ptr<const void> keeper_;
    std::span<const uint8_t> view_;
};

}  // namespace atbx::io

#endif  // ATBX_IO_TENSOR_BYTES_H
