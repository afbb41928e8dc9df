// PackIdentity: what Setup saw of a variant pack (descriptors, pointers, sizes, and the bytes of host
// tensors), so Execute can tell whether it is given the same call and whether the host values it was planned
// with changed.
#ifndef ATBX_OPS_PACK_IDENTITY_H
#define ATBX_OPS_PACK_IDENTITY_H

#include <cstdint>
#include <vector>

#include "atbx/types.h"
#include "rules/call_subject.h"

namespace atbx::ops {

class PackIdentity {
  public:
    // The pack must have passed Stage::kMemory: host tensors' data is readable for dataSize bytes.
    PackIdentity(const VariantPack& pack, const std::vector<rules::TensorSlot>& inputSlots);

    // Same tensors: descriptors, pointers and sizes.
    bool SameTensors(const VariantPack& pack) const;
    // Same bytes in every host tensor (only meaningful when SameTensors holds).
    bool SameHostValues(const VariantPack& pack) const;

  private:
    static bool Same(const SVector<Tensor>& a, const SVector<Tensor>& b);
    SVector<Tensor> inputs_;
    SVector<Tensor> outputs_;
    std::vector<rules::TensorSlot> slots_;
    std::vector<std::vector<uint8_t>> hostBytes_;  // per input; empty for device tensors
};

}  // namespace atbx::ops

#endif  // ATBX_OPS_PACK_IDENTITY_H
