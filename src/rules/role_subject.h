// RoleSubject: a CallSubject whose inputs are also known by role (an op's enum of ATB tensor names, ending in
// kCount). The three ops' subjects share these accessors; which roles a call has, and in which order, is the
// op's (its MakeSubject fills `index` with AssignInputs).
#ifndef ATBX_RULES_ROLE_SUBJECT_H
#define ATBX_RULES_ROLE_SUBJECT_H

#include <array>
#include <cstddef>
#include <cstdint>

#include "atbx/types.h"
#include "rules/call_subject.h"

namespace atbx::rules {

template <class Role>
struct RoleSubject : CallSubject {
    std::array<int, static_cast<size_t>(Role::kCount)> index{};  // position of each role, -1 when absent

    bool Has(Role role) const { return index[static_cast<size_t>(role)] >= 0; }
    int IndexOf(Role role) const { return index[static_cast<size_t>(role)]; }
    const TensorDesc& Desc(Role role) const { return inputs[IndexOf(role)]; }
    int64_t Dim(Role role, int d) const { return Desc(role).shape.dims[d]; }
    uint64_t Rank(Role role) const { return Desc(role).shape.dimNum; }
    const void* Data(Role role) const { return InputData(IndexOf(role)); }
};

}  // namespace atbx::rules

#endif  // ATBX_RULES_ROLE_SUBJECT_H
