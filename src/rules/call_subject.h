// CallSubject: what every operation's rules see of a call, whatever the op: the platform, the tensor
// descriptors, the data (from Stage::kMemory on) and the tensor slots the param asks for.
#ifndef ATBX_RULES_CALL_SUBJECT_H
#define ATBX_RULES_CALL_SUBJECT_H

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "atbx/platform.h"
#include "atbx/types.h"

namespace atbx::rules {

struct TensorSlot {
    std::string_view name;  // ATB's tensor name: "query", "contextLens" ...
    bool host = false;      // read on the host (hostData, else deviceData)
};

struct CallSubject {
    Platform platform = Platform::kAtlasA2;
    std::span<const TensorDesc> inputs;
    std::span<const TensorDesc> outputs;  // empty while only descriptors of inputs are known (InferShape)
    const VariantPack* pack = nullptr;    // set when data is known (Setup, Execute)
    std::vector<TensorSlot> inputSlots;   // the inputs the param asks for, in ATB order
    std::vector<TensorSlot> outputSlots;
    std::vector<TensorDesc> inferredOutputs;  // set before Stage::kOutput runs

    // Pointer a tensor's data is read from: hostData first for host tensors, deviceData otherwise.
    const void* InputData(size_t index) const;
    const void* OutputData(size_t index) const;
    // "input 4 (contextLens)".
    std::string InputLabel(size_t index) const;
    std::string OutputLabel(size_t index) const;
};

// Records the inputs a param asks for, in ATB order: each role's position in `index` (which must start all
// -1), and a slot per input with its name and whether it is read on the host.
template <class Role, size_t N, class NameOf, class IsHost>
void AssignInputs(CallSubject& subject, std::array<int, N>& index, const std::vector<Role>& order,
                  NameOf name, IsHost host) {
    for (size_t i = 0; i < order.size(); ++i) {
        index[static_cast<size_t>(order[i])] = static_cast<int>(i);
        subject.inputSlots.push_back({name(order[i]), host(order[i])});
    }
}

}  // namespace atbx::rules

#endif  // ATBX_RULES_CALL_SUBJECT_H
