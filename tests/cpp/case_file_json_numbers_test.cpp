// A case file whose JSON holds a number no double can hold is an IoError naming the field (exit 1 in the
// CLI), not an uncaught exception (found by the case_reader fuzz target: nlohmann::json reports such a number
// as out_of_range, not as a parse_error).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/case_file.h"
#include "io/npy.h"

namespace atbx::test {
namespace {

namespace fs = std::filesystem;

void ExpectOutOfRange(const std::string& json, const std::string& field) {
    const fs::path dir = fs::temp_directory_path() / "atbx_case_file_json_numbers";
    fs::create_directories(dir);
    std::ofstream(dir / "case.json") << json;
    try {
        (void)io::LoadCase(dir / "case.json", io::LoadOptions{});
        ADD_FAILURE() << "loaded: " << json;
    } catch (const io::IoError& e) {
        EXPECT_NE(std::string(e.what()).find("number out of range at " + field), std::string::npos)
            << e.what();
    }
    fs::remove_all(dir);
}

TEST(CaseFileJsonNumbers, NumbersBeyondDoubleAreRefusedWithTheirField) {
    ExpectOutOfRange(R"({"op": "PagedAttention", "param": {"headNum": 7777777777777e77777777777}})",
                     "param.headNum");
    ExpectOutOfRange(R"({"op": "PagedAttention", "param": {"qkScale": -1e400}, "inputs": [], "outputs": []})",
                     "param.qkScale");
    ExpectOutOfRange(
        R"({"op": "PagedAttention", "inputs": [{"file": "q.npy", "dtype": "float16", "shape": [1e999]}]})",
        "inputs[0].shape[0]");
}

}  // namespace
}  // namespace atbx::test
