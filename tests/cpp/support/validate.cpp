#include "support/validate.h"

#include <gtest/gtest.h>

#include <memory>

#include "atbx/operation.h"
#include "core/str_cat.h"
#include "ops/call_validation.h"
#include "ops/op_spec.h"

namespace atbx::test {
namespace {

template <class F>
auto WithSpec(TestCall& call, F&& f) {
    return std::visit(
        [&](auto& param) {
            using Spec = typename ops::SpecOf<std::decay_t<decltype(param)>>::type;
            return f.template operator()<Spec>(param);
        },
        call.param);
}

}  // namespace

std::vector<rules::Violation> Violations(TestCall& call) {
    return WithSpec(call, [&]<class Spec>(const typename Spec::Param& param) {
        const VariantPack pack = call.Pack();
        ops::CallValidation<Spec> validation(param, call.platform);
        validation.SetPack(pack);
        return validation.Run(rules::Stage::kParam, rules::Stage::kDeviceValues);
    });
}

std::vector<std::string> ViolatedRules(TestCall& call) {
    std::vector<std::string> ids;
    for (const rules::Violation& v : Violations(call))
        ids.emplace_back(v.rule->id);
    return ids;
}

std::string DescribeViolations(TestCall& call) {
    std::string text;
    for (const rules::Violation& v : Violations(call))
        text += core::StrCat(v.rule->id, ": ", v.message, "\n");
    return text.empty() ? std::string("(no violation)") : text;
}

void NameInputs(TestCall& call) {
    WithSpec(call, [&]<class Spec>(const typename Spec::Param& param) {
        const typename Spec::Subject subject = Spec::MakeSubject(param, call.platform);
        call.inputNames.clear();
        for (const rules::TensorSlot& slot : subject.inputSlots)
            call.inputNames.emplace_back(slot.name);
        return 0;
    });
}

void AttachOutputs(TestCall& call) {
    NameInputs(call);
    WithSpec(call, [&]<class Spec>(const typename Spec::Param& param) {
        SVector<TensorDesc> descs;
        for (const io::HostTensor& t : call.inputs)
            descs.push_back(t.desc);
        ops::CallValidation<Spec> validation(param, call.platform);
        validation.SetDescs(descs);
        const auto violations = validation.Run(rules::Stage::kParam, rules::Stage::kShape);
        EXPECT_TRUE(violations.empty()) << "the call's inputs break " << violations.front().rule->id << ": "
                                        << violations.front().message;
        call.outputs.clear();
        if (!violations.empty()) return 0;
        for (const TensorDesc& desc : Spec::InferOutputs(validation.subject()))
            call.outputs.push_back(ZeroTensor(desc));
        return 0;
    });
}

std::optional<Status> ApiStatus(TestCall& call) {
    return WithSpec(call, [&]<class Spec>(const typename Spec::Param& param) -> std::optional<Status> {
        if constexpr (ops::Executable<Spec>) {
            Operation* raw = nullptr;
            Status st = CreateOperation(param, &raw, call.platform);
            std::unique_ptr<Operation> op(raw);
            if (!st.ok()) return st;
            Context context{call.platform, 1, Backend::kReference};
            uint64_t workspaceSize = 0;
            const VariantPack pack = call.Pack();
            return op->Setup(pack, workspaceSize, &context);
        } else {
            return std::nullopt;
        }
    });
}

}  // namespace atbx::test
