#include "support/case_writer.h"

#include <fstream>
#include <vector>

#include "core/str_cat.h"
#include "io/case_file.h"
#include "io/npy.h"
#include "io/param_json.h"

namespace atbx::test {

void WriteCase(const TestCall& call, const std::filesystem::path& dir, const std::string& description) {
    std::filesystem::create_directories(dir);
    nlohmann::json inputs = nlohmann::json::array();
    for (size_t i = 0; i < call.inputs.size(); ++i) {
        const io::HostTensor& tensor = call.inputs[i];
        const std::string file =
            core::StrCat(i < call.inputNames.size() ? call.inputNames[i] : core::StrCat("input", i), ".npy");
        const std::vector<int64_t> shape(tensor.desc.shape.dims,
                                         tensor.desc.shape.dims + tensor.desc.shape.dimNum);
        std::ofstream npy(dir / file, std::ios::binary);
        npy << io::NpyFileHeader(io::NpyDescr(tensor.desc.dtype), shape);
        npy.write(reinterpret_cast<const char*>(tensor.bytes.data()),
                  static_cast<std::streamsize>(tensor.bytes.size()));
        inputs.push_back({{"file", file},
                          {"dtype", DataTypeName(tensor.desc.dtype)},
                          {"format", FormatName(tensor.desc.format)}});
    }
    nlohmann::json outputs = nlohmann::json::array();
    for (size_t i = 0; i < call.outputs.size(); ++i)
        outputs.push_back({{"file", core::StrCat("out", i, ".npy")}});
    const nlohmann::json root = {{"op", io::OpName(call.param)},
                                 {"platform", PlatformName(call.platform)},
                                 {"description", description},
                                 {"param", io::ParamToJson(call.param)},
                                 {"inputs", inputs},
                                 {"outputs", outputs}};
    std::ofstream(dir / "case.json") << root.dump(2) << "\n";
}

}  // namespace atbx::test
