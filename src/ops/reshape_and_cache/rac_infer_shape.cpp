#include "ops/reshape_and_cache/rac_infer_shape.h"

namespace atbx::ops::rac {

std::vector<TensorDesc> InferOutputs(const RacSubject& s) {
    std::vector<TensorDesc> outputs = {s.Desc(Input::kKeyCache)};
    if (s.Has(Input::kValueCache)) outputs.push_back(s.Desc(Input::kValueCache));
    return outputs;
}

}  // namespace atbx::ops::rac
