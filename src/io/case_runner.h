// Runs or checks a loaded case file through the public operation path, and writes its outputs.
#ifndef ATBX_IO_CASE_RUNNER_H
#define ATBX_IO_CASE_RUNNER_H

#include <string>
#include <vector>

#include "atbx/context.h"
#include "atbx/status.h"
#include "io/case_file.h"
#include "rules/rule.h"

namespace atbx::io {

struct CaseOutcome {
    Status status;                             // NO_ERROR, or the first violation
    std::vector<rules::Violation> violations;  // every violation of the first failing stage
    std::string kernel;                        // the kernel that ran
    double seconds = 0.0;                      // Execute's wall time
    std::vector<HostTensor> outputs;           // ATB outputs, then the inputs updated in place
};

// Validates the case without executing it. Throws IoError when the case lists the wrong number of outputs.
// Reads only what the rules read (host tensors, indices): the other inputs' mapped pages are never touched.
CaseOutcome CheckCase(const CaseFile& c);
// Validates, plans and executes the case. Throws IoError when the case lists the wrong number of outputs.
CaseOutcome RunCase(const CaseFile& c, Backend backend, int threads);

}  // namespace atbx::io

#endif  // ATBX_IO_CASE_RUNNER_H
