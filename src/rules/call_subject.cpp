#include "rules/call_subject.h"

#include "core/str_cat.h"

namespace atbx::rules {
namespace {

const void* DataOf(const Tensor& tensor, bool host) {
    if (host && tensor.hostData != nullptr) return tensor.hostData;
    return tensor.deviceData;
}

std::string Label(const char* kind, size_t index, const std::vector<TensorSlot>& slots) {
    if (index < slots.size()) return core::StrCat(kind, ' ', index, " (", slots[index].name, ')');
    return core::StrCat(kind, ' ', index);
}

}  // namespace

const void* CallSubject::InputData(size_t index) const {
    if (pack == nullptr || index >= pack->inTensors.size()) return nullptr;
    const bool host = index < inputSlots.size() && inputSlots[index].host;
    return DataOf(pack->inTensors[index], host);
}

const void* CallSubject::OutputData(size_t index) const {
    if (pack == nullptr || index >= pack->outTensors.size()) return nullptr;
    return pack->outTensors[index].deviceData;
}

std::string CallSubject::InputLabel(size_t index) const {
    return Label("input", index, inputSlots);
}
std::string CallSubject::OutputLabel(size_t index) const {
    return Label("output", index, outputSlots);
}

}  // namespace atbx::rules
