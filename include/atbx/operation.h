// Operation: ATB's operation interface. Create with a param struct, InferShape, Setup, Execute.
#ifndef ATBX_OPERATION_H
#define ATBX_OPERATION_H

#include <cstdint>
#include <string>

#include "atbx/context.h"
#include "atbx/platform.h"
#include "atbx/status.h"
#include "atbx/types.h"

namespace atbx {

class Operation {
  public:
    Operation() = default;
    virtual ~Operation() = default;
    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;

    virtual std::string GetName() const = 0;
    // Output descriptors for the given input descriptors; validates everything a descriptor can show.
    virtual Status InferShape(const SVector<TensorDesc>& inTensorDescs,
                              SVector<TensorDesc>& outTensorDescs) const = 0;
    // Number of inputs and outputs for this operation's param (ATB's formulas).
    virtual uint32_t GetInputNum() const = 0;
    virtual uint32_t GetOutputNum() const = 0;
    // Validates the whole call (descriptors, sizes, host data, indices read from device data) against the
    // context's platform profile, plans the work and returns the workspace Execute needs.
    virtual Status Setup(const VariantPack& variantPack, uint64_t& workspaceSize, Context* context) = 0;
    // Runs the work planned by Setup. The variant pack must be the one given to Setup.
    virtual Status Execute(const VariantPack& variantPack, uint8_t* workspace, uint64_t workspaceSize,
                           Context* context) = 0;
    // Which kernel Execute runs for the planned call ("reference", "cpu:scalar" ...), empty before Setup.
    virtual std::string KernelName() const = 0;
};

// Validates the param against the platform profile (ATB's CreateOperation checks) and creates the operation.
// On failure *operation is set to nullptr. Instantiated for the three param structs of infer_op_params.h.
template <typename OpParam>
Status CreateOperation(const OpParam& opParam, Operation** operation, Platform platform = Platform::kAtlasA2);

Status DestroyOperation(Operation* operation);

}  // namespace atbx

#endif  // ATBX_OPERATION_H
