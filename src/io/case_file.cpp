#include "io/case_file.h"

#include <algorithm>
#include <limits>

#include "core/str_cat.h"
#include "io/files.h"
#include "io/json_reader.h"
#include "io/npy.h"
#include "io/param_json.h"
#include "io/paths.h"
#include "io/user_text.h"

namespace atbx::io {
namespace {

using core::StrCat;
using nlohmann::json;

// Every aclDataType and the .npy descr it is stored as. Types without a NumPy counterpart are raw bits:
// bfloat16 as '<u2', complex32 as '<u4', the 8-bit floats, strings and the sub-byte types as '|u1' (one
// element per byte; atbx never reads their values, every operation rejects them by rule).
constexpr std::pair<aclDataType, std::string_view> kDataTypes[] = {
    {ACL_FLOAT16, "<f2"},     {ACL_BF16, "<u2"},          {ACL_FLOAT, "<f4"},       {ACL_DOUBLE, "<f8"},
    {ACL_INT8, "|i1"},        {ACL_UINT8, "|u1"},         {ACL_INT16, "<i2"},       {ACL_UINT16, "<u2"},
    {ACL_INT32, "<i4"},       {ACL_UINT32, "<u4"},        {ACL_INT64, "<i8"},       {ACL_UINT64, "<u8"},
    {ACL_BOOL, "|b1"},        {ACL_STRING, "|u1"},        {ACL_COMPLEX64, "<c8"},   {ACL_COMPLEX128, "<c16"},
    {ACL_COMPLEX32, "<u4"},   {ACL_INT4, "|u1"},          {ACL_UINT1, "|u1"},       {ACL_HIFLOAT8, "|u1"},
    {ACL_FLOAT8_E5M2, "|u1"}, {ACL_FLOAT8_E4M3FN, "|u1"}, {ACL_FLOAT8_E8M0, "|u1"}, {ACL_FLOAT6_E3M2, "|u1"},
    {ACL_FLOAT6_E2M3, "|u1"}, {ACL_FLOAT4_E2M1, "|u1"},   {ACL_FLOAT4_E1M2, "|u1"},
};

constexpr aclFormat kFormats[] = {
    ACL_FORMAT_NCHW,
    ACL_FORMAT_NHWC,
    ACL_FORMAT_ND,
    ACL_FORMAT_NC1HWC0,
    ACL_FORMAT_FRACTAL_Z,
    ACL_FORMAT_NC1HWC0_C04,
    ACL_FORMAT_HWCN,
    ACL_FORMAT_NDHWC,
    ACL_FORMAT_FRACTAL_NZ,
    ACL_FORMAT_NCDHW,
    ACL_FORMAT_NDC1HWC0,
    ACL_FRACTAL_Z_3D,
    ACL_FORMAT_NC,
    ACL_FORMAT_NCL,
    ACL_FORMAT_FRACTAL_NZ_C0_16,
    ACL_FORMAT_FRACTAL_NZ_C0_32,
    ACL_FORMAT_FRACTAL_NZ_C0_2,
    ACL_FORMAT_FRACTAL_NZ_C0_4,
    ACL_FORMAT_FRACTAL_NZ_C0_8,
};

std::string DataTypeNames() {
    std::string names;
    for (auto [dtype, descr] : kDataTypes)
        names += StrCat(names.empty() ? "" : ", ", DataTypeName(dtype));
    return names;
}

std::string FormatNames() {
    std::string names;
    for (aclFormat format : kFormats)
        names += StrCat(names.empty() ? "" : ", ", FormatName(format));
    return names;
}

const json& Member(const json& object, const char* key, const std::string& where) {
    auto it = object.find(key);
    if (it == object.end()) throw IoError(StrCat(where, ": missing \"", key, "\""));
    return *it;
}

const std::string& StringMember(const json& object, const char* key, const std::string& where) {
    const json& value = Member(object, key, where);
    if (!value.is_string())
        throw IoError(StrCat(where, ": \"", key, "\" must be a string, got ", DescribeJson(value)));
    return value.get_ref<const std::string&>();
}

void RejectUnknownKeys(const json& object, std::initializer_list<std::string_view> known,
                       const std::string& where) {
    for (const auto& item : object.items()) {
        if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
            throw IoError(StrCat(where, ": unknown key ", Quoted(item.key())));
        }
    }
}

std::vector<int64_t> DeclaredShape(const json& shape, const std::string& where) {
    const std::string expected =
        StrCat(where, ": \"shape\" must be an array of at most ", MAX_DIM, " integers in int64 range, got ");
    if (!shape.is_array() || shape.size() > MAX_DIM) throw IoError(expected + DescribeJson(shape));
    std::vector<int64_t> dims;
    for (const json& dim : shape) {
        const bool fits = dim.is_number_integer() &&
                          (!dim.is_number_unsigned() ||
                           dim.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
        if (!fits) throw IoError(expected + DescribeJson(dim));
        dims.push_back(dim.get<int64_t>());
    }
    return dims;
}

std::string ShapeText(std::span<const int64_t> shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        text += StrCat(i ? ", " : "", shape[i]);
    return text + "]";
}

CaseInputEntry InputEntry(const json& entry, const std::string& where) {
    if (!entry.is_object()) throw IoError(StrCat(where, " must be an object with \"file\" and \"dtype\""));
    RejectUnknownKeys(entry, {"file", "dtype", "format", "shape"}, where);
    CaseInputEntry input;
    const std::string& dtypeName = StringMember(entry, "dtype", where);
    const std::optional<aclDataType> dtype = ParseDataType(dtypeName);
    if (!dtype) {
        throw IoError(
            StrCat(where, ": unknown dtype ", Quoted(dtypeName), " (expected one of ", DataTypeNames(), ")"));
    }
    input.dtype = *dtype;
    if (entry.contains("format")) {
        const std::string& formatName = StringMember(entry, "format", where);
        const std::optional<aclFormat> format = ParseFormat(formatName);
        if (!format) {
            throw IoError(
                StrCat(where, ": format must be one of ", FormatNames(), ", got ", Quoted(formatName)));
        }
        input.format = *format;
    }
    if (entry.contains("shape")) input.shape = DeclaredShape(entry["shape"], where);
    input.file = StringMember(entry, "file", where);
    if (input.file.find('\0') != std::string::npos)
        throw IoError(StrCat(where, ": file name ", Quoted(input.file), " holds a NUL byte"));
    return input;
}

std::string OutputEntry(const json& entry, const std::string& where) {
    if (!entry.is_object()) throw IoError(StrCat(where, " must be an object with \"file\""));
    RejectUnknownKeys(entry, {"file"}, where);
    std::string file = StringMember(entry, "file", where);
    CheckOutputName(file, where);
    return file;
}

Platform PlatformMember(const json& root, const std::string& where) {
    const std::string& name = StringMember(root, "platform", where);
    const std::optional<Platform> parsed = ParsePlatform(name);
    if (!parsed) {
        throw IoError(StrCat(where, ": unknown platform ", Quoted(name),
                             " (expected atlas-a2, atlas-inference, atlas-training or atlas-350)"));
    }
    return *parsed;
}

// ParseParam's errors, with the file named.
OpParam ParamIn(const std::string& op, const json& param, const std::string& name) {
    try {
        return ParseParam(op, param);
    } catch (const IoError& e) {
        throw IoError(StrCat(name, ": ", e.what()));
    }
}

CaseInput LoadInput(const CaseInputEntry& entry, const std::filesystem::path& dir, bool allowOutside,
                    const std::string& where) {
    const std::filesystem::path file = ResolveInputPath(dir, entry.file, allowOutside, where);
    NpyArray array = MapNpy(file);
    const std::string descr = NpyDescr(entry.dtype);
    const bool int8Alias = entry.dtype == ACL_INT8 && array.descr == "<i1";
    if (array.descr != descr && !int8Alias) {
        throw IoError(StrCat(where, " (", Printable(file.string(), 300), "): the case file says ",
                             DataTypeName(entry.dtype), " (.npy descr ", descr, ") but the file holds descr ",
                             Printable(array.descr)));
    }
    if (entry.shape && *entry.shape != array.shape) {
        throw IoError(StrCat(where, ": the case file declares shape ", ShapeText(*entry.shape),
                             " but the .npy file holds ", ShapeText(array.shape)));
    }
    if (array.shape.size() > MAX_DIM) throw IoError(StrCat(where, ": more than ", MAX_DIM, " dims"));
    CaseInput tensor;
    tensor.desc.dtype = entry.dtype;
    tensor.desc.format = entry.format;
    tensor.desc.shape.dimNum = array.shape.size();
    std::copy(array.shape.begin(), array.shape.end(), tensor.desc.shape.dims);
    tensor.bytes = std::move(array.data);
    return tensor;
}

}  // namespace

std::optional<aclDataType> ParseDataType(std::string_view name) {
    for (auto [dtype, descr] : kDataTypes) {
        if (name == DataTypeName(dtype)) return dtype;
    }
    return std::nullopt;
}

std::optional<aclFormat> ParseFormat(std::string_view name) {
    for (aclFormat format : kFormats) {
        if (name == FormatName(format)) return format;
    }
    return std::nullopt;
}

std::string NpyDescr(aclDataType dtype) {
    for (auto [known, descr] : kDataTypes) {
        if (known == dtype) return std::string(descr);
    }
    return "";
}

CaseText ParseCaseText(std::span<const uint8_t> text, const std::string& name) {
    const json root = ParseBoundedJson(text, name);
    if (!root.is_object()) throw IoError(StrCat(name, ": the case must be a JSON object"));
    RejectUnknownKeys(root, {"op", "platform", "param", "inputs", "outputs", "description"}, name);
    const std::string& op = StringMember(root, "op", name);
    static const json kNoParam = json::object();
    const auto param = root.find("param");
    CaseText c{ParamIn(op, param == root.end() ? kNoParam : *param, name), std::nullopt, {}, {}};
    if (root.contains("platform")) c.platform = PlatformMember(root, name);
    const json& inputs = Member(root, "inputs", name);
    const json& outputs = Member(root, "outputs", name);
    if (!inputs.is_array() || !outputs.is_array())
        throw IoError(StrCat(name, ": \"inputs\" and \"outputs\" must be arrays"));
    for (size_t i = 0; i < inputs.size(); ++i)
        c.inputs.push_back(InputEntry(inputs[i], StrCat(name, ": inputs[", i, "]")));
    for (size_t i = 0; i < outputs.size(); ++i)
        c.outputFiles.push_back(OutputEntry(outputs[i], StrCat(name, ": outputs[", i, "]")));
    return c;
}

CaseFile LoadCase(const std::filesystem::path& path, const LoadOptions& options) {
    const std::string name = Printable(path.string(), 300);
    CaseText text = ParseCaseText(ReadFileBytes(path, kMaxCaseFileBytes), name);
    CaseFile c;
    c.path = path;
    c.param = std::move(text.param);
    c.platform = options.platform.value_or(text.platform.value_or(Platform::kAtlasA2));
    c.outputFiles = std::move(text.outputFiles);
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
    for (size_t i = 0; i < text.inputs.size(); ++i) {
        c.inputs.push_back(
            LoadInput(text.inputs[i], dir, options.allowOutside, StrCat(name, ": inputs[", i, "]")));
    }
    return c;
}

}  // namespace atbx::io
