// A case file whose JSON holds a number no double can hold is malformed JSON, an IoError (exit 1 in the CLI),
// not an uncaught exception (found by the case_reader fuzz target: nlohmann::json reports such a number as
// out_of_range, not as a parse_error).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/case_file.h"
#include "io/npy.h"

namespace atbx::test {
namespace {

namespace fs = std::filesystem;

void ExpectMalformed(const std::string& json) {
    const fs::path dir = fs::temp_directory_path() / "atbx_case_file_json_numbers";
    fs::create_directories(dir);
    std::ofstream(dir / "case.json") << json;
    try {
        (void)io::LoadCase(dir / "case.json", io::LoadOptions{});
        ADD_FAILURE() << "loaded: " << json;
    } catch (const io::IoError& e) {
        EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

TEST(CaseFileJsonNumbers, NumbersBeyondDoubleAreMalformedJson) {
    ExpectMalformed(R"({"op": "PagedAttention", "param": {"headNum": 7777777777777e77777777777}})");
    ExpectMalformed(R"({"op": "PagedAttention", "param": {"qkScale": -1e400}, "inputs": [], "outputs": []})");
    ExpectMalformed(
        R"({"op": "PagedAttention", "inputs": [{"file": "q.npy", "dtype": "float16", "shape": [1e999]}]})");
}

}  // namespace
}  // namespace atbx::test
