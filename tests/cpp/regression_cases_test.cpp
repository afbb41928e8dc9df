// Regression cases: every case file under tests/data/regressions/ (shrunk failures of the property test, fuzz
// findings that execute) is a valid call that must agree on every path (support/every_path.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "io/case_file.h"
#include "support/every_path.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> RegressionCases() {
    std::vector<std::string> names;
    const fs::path root = fs::path(ATBX_TEST_DATA_DIR) / "regressions";
    if (!fs::is_directory(root)) return names;
    for (const fs::directory_entry& entry : fs::directory_iterator(root)) {
        if (fs::exists(entry.path() / "case.json")) names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

TestCall FromCaseFile(const io::CaseFile& c) {
    TestCall call;
    call.param = c.param;
    call.platform = c.platform;
    for (const io::CaseInput& input : c.inputs) {
        const std::span<const uint8_t> bytes = input.bytes.span();
        call.inputs.push_back({input.desc, std::vector<uint8_t>(bytes.begin(), bytes.end())});
    }
    AttachOutputs(call);
    return call;
}

class RegressionCaseTest : public testing::TestWithParam<std::string> {};

TEST_P(RegressionCaseTest, AgreesOnEveryPath) {
    const fs::path file = fs::path(ATBX_TEST_DATA_DIR) / "regressions" / GetParam() / "case.json";
    const TestCall call = FromCaseFile(io::LoadCase(file, io::LoadOptions{}));
    TestCall validated = call;
    ASSERT_TRUE(Violations(validated).empty()) << DescribeViolations(validated);
    // On 2 threads, and the same bytes on 3, as the property test asks.
    const PathReport report = CheckEveryPath(call, 2, 3);
    EXPECT_EQ(report.failure, "");
    for (const std::string& path : report.ran)
        std::cout << GetParam() << ": ran on " << path << "\n";
}

INSTANTIATE_TEST_SUITE_P(Regressions, RegressionCaseTest, testing::ValuesIn(RegressionCases()));
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegressionCaseTest);

}  // namespace
}  // namespace atbx::test
