#include "ops/pack_identity.h"

#include <cstring>

namespace atbx::ops {
namespace {

bool SameDesc(const TensorDesc& a, const TensorDesc& b) {
    if (a.dtype != b.dtype || a.format != b.format || a.shape.dimNum != b.shape.dimNum) return false;
    for (uint64_t d = 0; d < a.shape.dimNum && d < MAX_DIM; ++d) {
        if (a.shape.dims[d] != b.shape.dims[d]) return false;
    }
    return true;
}

const uint8_t* HostBytes(const Tensor& tensor) {
    return static_cast<const uint8_t*>(tensor.hostData != nullptr ? tensor.hostData : tensor.deviceData);
}

std::vector<uint8_t> CopyHostBytes(const Tensor& tensor) {
    const uint64_t size = ElementCount(tensor.desc) * DataTypeSize(tensor.desc.dtype);
    const uint8_t* data = HostBytes(tensor);
    return std::vector<uint8_t>(data, data + size);
}

}  // namespace

PackIdentity::PackIdentity(const VariantPack& pack, const std::vector<rules::TensorSlot>& inputSlots)
    : inputs_(pack.inTensors),
      outputs_(pack.outTensors),
      slots_(inputSlots),
      hostBytes_(pack.inTensors.size()) {
    for (size_t i = 0; i < inputs_.size() && i < slots_.size(); ++i) {
        if (slots_[i].host) hostBytes_[i] = CopyHostBytes(inputs_[i]);
    }
}

bool PackIdentity::SameTensors(const VariantPack& pack) const {
    return Same(inputs_, pack.inTensors) && Same(outputs_, pack.outTensors);
}

bool PackIdentity::SameHostValues(const VariantPack& pack) const {
    for (size_t i = 0; i < hostBytes_.size(); ++i) {
        if (hostBytes_[i].empty()) continue;
        if (std::memcmp(hostBytes_[i].data(), HostBytes(pack.inTensors[i]), hostBytes_[i].size()) != 0)
            return false;
    }
    return true;
}

bool PackIdentity::Same(const SVector<Tensor>& a, const SVector<Tensor>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!SameDesc(a[i].desc, b[i].desc) || a[i].deviceData != b[i].deviceData ||
            a[i].hostData != b[i].hostData || a[i].dataSize != b[i].dataSize) {
            return false;
        }
    }
    return true;
}

}  // namespace atbx::ops
