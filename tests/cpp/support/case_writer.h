// Writing a TestCall as a case file (docs/case-files.md): case.json beside one .npy per input, in ATB order.
// Fuzz seeds and the property test's shrunk failures are saved this way; io::LoadCase reads them back.
#ifndef ATBX_TESTS_SUPPORT_CASE_WRITER_H
#define ATBX_TESTS_SUPPORT_CASE_WRITER_H

#include <filesystem>
#include <string>

#include "support/test_call.h"

namespace atbx::test {

// Writes dir/case.json and dir/<input name>.npy (dir is created); outputs are listed as out<i>.npy.
// `description` goes into the case's "description".
void WriteCase(const TestCall& call, const std::filesystem::path& dir, const std::string& description);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_CASE_WRITER_H
