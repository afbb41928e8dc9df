// OperationHandle: one atbx Operation for Python (atbx.Operation wraps it). It parses the param from the
// case-file JSON (io::ParseParam, the one param contract), creates the operation, and runs calls on arrays
// bound in place, with the GIL released while the operation validates and executes.
#ifndef ATBX_PYTHON_OPERATION_HANDLE_H
#define ATBX_PYTHON_OPERATION_HANDLE_H

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "atbx/operation.h"
#include "io/op_param.h"
#include "tensor_args.h"

namespace atbx::python {

// (rule id, status name, status code, message): one violated rule, as check() reports it.
using ViolationTuple = std::tuple<std::string, std::string, int, std::string>;

class OperationHandle {
  public:
    // op: "PagedAttention", "SelfAttention" or "ReshapeAndCache"; paramJson: the case file's "param" object.
    // Raises ParamError for an unknown op, field or JSON type, ConstraintError when the param breaks a rule
    // of the platform profile.
    OperationHandle(const std::string& op, const std::string& paramJson, const std::string& platform);

    const std::string& op() const { return op_; }
    std::string ParamJson() const;
    std::string PlatformName() const;
    // ATB's tensor names for this param, in ATB order ("query", "keyCache" ...).
    const std::vector<std::string>& InputNames() const { return inputNames_; }
    std::vector<std::string> OutputNames() const;
    // Per ATB output, the input it aliases (updated in place), or -1.
    std::vector<int> OutputAliases() const;
    // Inputs updated in place that are not ATB outputs (SelfAttention's caches when the op keeps them).
    std::vector<int> InPlaceInputs() const;

    // Output descriptors for these input descriptors; raises ConstraintError.
    std::vector<DescArg> InferShape(const std::vector<DescArg>& inputs) const;
    // Every violation of the first failing validation stage of the whole call (outputs as InferShape gives
    // them); empty when the call is valid. Nothing is executed.
    std::vector<ViolationTuple> Check(const std::vector<ArrayArg>& inputs) const;
    // Setup and Execute on the arrays' own memory; raises ConstraintError. Calls on one handle from several
    // threads run one after another (ATB: one operation per stream); calls on different handles run in
    // parallel.
    void Run(const std::vector<ArrayArg>& inputs, const std::vector<ArrayArg>& outputs,
             const std::string& backend, int threads);

    // The kernel the last successful Run executed ("cpu:scalar", "reference").
    std::string KernelName() const;
    // Data pointers of the input and output tensors the core was given in the last Run (zero-copy tests).
    std::pair<std::vector<uintptr_t>, std::vector<uintptr_t>> LastPointers() const;

  private:
    VariantPack BindPack(const std::vector<ArrayArg>& inputs, const std::vector<ArrayArg>& outputs) const;
    std::string InputLabel(size_t index) const;

    std::string op_;
    io::OpParam param_;
    Platform platform_;
    std::vector<std::string> inputNames_;
    std::unique_ptr<Operation> operation_;
    mutable std::mutex mutex_;  // guards operation_'s planned state and the fields below
    std::string kernel_;
    std::pair<std::vector<uintptr_t>, std::vector<uintptr_t>> lastPointers_;
};

// Largest number of Runs seen executing at the same time since the last reset (GIL-release tests).
int MaxRunsInFlight();
void ResetRunsInFlight();

}  // namespace atbx::python

#endif  // ATBX_PYTHON_OPERATION_HANDLE_H
