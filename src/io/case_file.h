// Case files: one JSON file naming an op, its platform profile, its param (ATB field names) and its input and
// output tensors as .npy files in ATB's order. The CLI and the tests read the same format
// (docs/case-files.md).
#ifndef ATBX_IO_CASE_FILE_H
#define ATBX_IO_CASE_FILE_H

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "atbx/platform.h"
#include "atbx/types.h"
#include "io/param_json.h"

namespace atbx::io {

// A tensor held in memory: its descriptor and its bytes.
struct HostTensor {
    TensorDesc desc;
    std::vector<uint8_t> bytes;
};

struct CaseFile {
    std::filesystem::path path;
    OpParam param;
    Platform platform = Platform::kAtlasA2;
    std::vector<HostTensor> inputs;
    std::vector<std::filesystem::path>
        outputFiles;  // as written in the case file, relative to the output dir
};

// Reads the case file and its input tensors. `platform` overrides the file's own. Throws IoError when the
// file, its JSON or a tensor file is malformed, or a tensor's dtype or shape contradicts the case file.
CaseFile LoadCase(const std::filesystem::path& path, std::optional<Platform> platform);

// dtype names of case files: "float16", "bfloat16", "float32", "int8", "int32", "int64", "uint64".
std::optional<aclDataType> ParseDataType(std::string_view name);
// The .npy descr a dtype is stored as ("<u2" for bfloat16: raw bits).
std::string NpyDescr(aclDataType dtype);

}  // namespace atbx::io

#endif  // ATBX_IO_CASE_FILE_H
