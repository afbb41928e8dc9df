// Case files: one JSON file naming an op, its platform profile, its param (ATB field names) and its input and
// output tensors as .npy files in ATB's order. The CLI and the tests read the same format
// (docs/case-files.md). A case file may come from someone else: its JSON is parsed with bounded nesting, the
// files it names are confined to the case file's folder, and tensor data is mapped, not read, until used.
#ifndef ATBX_IO_CASE_FILE_H
#define ATBX_IO_CASE_FILE_H

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "atbx/platform.h"
#include "atbx/types.h"
#include "io/host_tensor.h"
#include "io/op_param.h"
#include "io/tensor_bytes.h"

namespace atbx::io {

// An input entry as the case file writes it.
struct CaseInputEntry {
    std::string file;  // as written, relative to the case file's folder
    aclDataType dtype = ACL_DT_UNDEFINED;
    aclFormat format = ACL_FORMAT_ND;
    std::optional<std::vector<int64_t>> shape;  // declared, checked against the file
};

// What a case file's JSON says, before any tensor file is opened.
struct CaseText {
    OpParam param;
    std::optional<Platform> platform;
    std::vector<CaseInputEntry> inputs;
    std::vector<std::string> outputFiles;  // plain file names, created in the output folder
};

// An input tensor of a loaded case: its descriptor and its (mapped) bytes.
struct CaseInput {
    TensorDesc desc;
    TensorBytes bytes;
};

struct CaseFile {
    std::filesystem::path path;
    OpParam param;
    Platform platform = Platform::kAtlasA2;
    std::vector<CaseInput> inputs;
    std::vector<std::string> outputFiles;
};

struct LoadOptions {
    std::optional<Platform> platform;  // overrides the case file's own
    bool allowOutside = false;         // input files may lie outside the case file's folder
};

// A case file's JSON is a few KB; larger files are refused before parsing.
constexpr uint64_t kMaxCaseFileBytes = uint64_t{16} << 20;

// Parses a case file's JSON text; opens no file. `name` labels errors. Throws IoError.
CaseText ParseCaseText(std::span<const uint8_t> json, const std::string& name);

// Reads the case file, its input tensors' headers, and maps their data. Throws IoError when a file is
// missing, malformed or outside the case file's folder, or a tensor contradicts the case file.
CaseFile LoadCase(const std::filesystem::path& path, const LoadOptions& options);

// dtype names of case files: every aclDataType ("float16", "bfloat16", "bool", "int4" ...), as DataTypeName
// spells them.
std::optional<aclDataType> ParseDataType(std::string_view name);
// format names of case files: every aclFormat ("ND", "FRACTAL_NZ", "NC1HWC0" ...), as FormatName spells them.
std::optional<aclFormat> ParseFormat(std::string_view name);
// The .npy descr a dtype is stored as ("<u2" for bfloat16: raw bits; "|u1" for the 8-bit floats).
std::string NpyDescr(aclDataType dtype);

}  // namespace atbx::io

#endif  // ATBX_IO_CASE_FILE_H
