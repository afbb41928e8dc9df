#include "io/case_file.h"

#include "core/str_cat.h"
#include "io/files.h"
#include "io/npy.h"

namespace atbx::io {
namespace {

using core::StrCat;
using nlohmann::json;

constexpr std::pair<std::string_view, aclDataType> kDataTypes[] = {
    {"float16", ACL_FLOAT16}, {"bfloat16", ACL_BF16}, {"float32", ACL_FLOAT}, {"int8", ACL_INT8},
    {"int32", ACL_INT32},     {"int64", ACL_INT64},   {"uint64", ACL_UINT64},
};

json ReadJson(const std::filesystem::path& path) {
    const std::vector<uint8_t> bytes = ReadFileBytes(path);
    try {
        return json::parse(bytes.begin(), bytes.end());
    } catch (const json::exception& e) {
        // parse_error, and out_of_range for a number no double holds ("1e999").
        throw IoError(StrCat(path.string(), ": malformed JSON: ", e.what()));
    }
}

const json& Member(const json& object, const char* key, const std::string& where) {
    auto it = object.find(key);
    if (it == object.end()) throw IoError(StrCat(where, ": missing \"", key, "\""));
    return *it;
}

std::string StringMember(const json& object, const char* key, const std::string& where) {
    const json& value = Member(object, key, where);
    if (!value.is_string())
        throw IoError(StrCat(where, ": \"", key, "\" must be a string, got ", value.dump()));
    return value.get<std::string>();
}

void RejectUnknownKeys(const json& object, std::initializer_list<std::string_view> known,
                       const std::string& where) {
    for (const auto& item : object.items()) {
        if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
            throw IoError(StrCat(where, ": unknown key \"", item.key(), "\""));
        }
    }
}

aclFormat ParseFormat(const json& entry, const std::string& where) {
    if (!entry.contains("format")) return ACL_FORMAT_ND;
    const std::string name = StringMember(entry, "format", where);
    if (name == "ND") return ACL_FORMAT_ND;
    if (name == "FRACTAL_NZ") return ACL_FORMAT_FRACTAL_NZ;
    throw IoError(StrCat(where, ": format must be \"ND\" or \"FRACTAL_NZ\", got \"", name, "\""));
}

void CheckDeclaredShape(const json& entry, const NpyArray& array, const std::string& where) {
    if (!entry.contains("shape")) return;
    const json& shape = entry["shape"];
    std::vector<int64_t> declared;
    if (shape.is_array()) {
        for (const json& dim : shape) {
            if (!dim.is_number_integer())
                throw IoError(StrCat(where, ": \"shape\" must be an array of integers"));
            declared.push_back(dim.get<int64_t>());
        }
    } else {
        throw IoError(StrCat(where, ": \"shape\" must be an array of integers"));
    }
    if (declared != array.shape) {
        throw IoError(StrCat(where, ": the case file declares shape ", shape.dump(),
                             " but the .npy file holds ", json(array.shape).dump()));
    }
}

HostTensor LoadInput(const json& entry, const std::filesystem::path& dir, size_t index) {
    const std::string where = StrCat("inputs[", index, "]");
    if (!entry.is_object()) throw IoError(StrCat(where, " must be an object with \"file\" and \"dtype\""));
    RejectUnknownKeys(entry, {"file", "dtype", "format", "shape"}, where);
    const std::string dtypeName = StringMember(entry, "dtype", where);
    const std::optional<aclDataType> dtype = ParseDataType(dtypeName);
    if (!dtype) {
        throw IoError(StrCat(where, ": unknown dtype \"", dtypeName,
                             "\" (expected float16, bfloat16, float32, int8, int32, int64 or uint64)"));
    }
    const std::filesystem::path file = dir / StringMember(entry, "file", where);
    NpyArray array = ReadNpy(file);
    const bool int8Alias = *dtype == ACL_INT8 && array.descr == "<i1";
    if (array.descr != NpyDescr(*dtype) && !int8Alias) {
        throw IoError(StrCat(where, " (", file.string(), "): the case file says ", dtypeName, " (.npy descr ",
                             NpyDescr(*dtype), ") but the file holds descr ", array.descr));
    }
    CheckDeclaredShape(entry, array, where);
    if (array.shape.size() > MAX_DIM) throw IoError(StrCat(where, ": more than ", MAX_DIM, " dims"));
    HostTensor tensor;
    tensor.desc.dtype = *dtype;
    tensor.desc.format = ParseFormat(entry, where);
    tensor.desc.shape.dimNum = array.shape.size();
    for (size_t d = 0; d < array.shape.size(); ++d)
        tensor.desc.shape.dims[d] = array.shape[d];
    tensor.bytes = std::move(array.data);
    return tensor;
}

std::filesystem::path OutputFile(const json& entry, size_t index) {
    const std::string where = StrCat("outputs[", index, "]");
    if (!entry.is_object()) throw IoError(StrCat(where, " must be an object with \"file\""));
    RejectUnknownKeys(entry, {"file"}, where);
    return StringMember(entry, "file", where);
}

}  // namespace

std::optional<aclDataType> ParseDataType(std::string_view name) {
    for (auto [text, dtype] : kDataTypes) {
        if (name == text) return dtype;
    }
    return std::nullopt;
}

std::string NpyDescr(aclDataType dtype) {
    switch (dtype) {
        case ACL_FLOAT16:
            return "<f2";
        case ACL_BF16:
            return "<u2";
        case ACL_FLOAT:
            return "<f4";
        case ACL_INT8:
            return "|i1";
        case ACL_INT32:
            return "<i4";
        case ACL_INT64:
            return "<i8";
        case ACL_UINT64:
            return "<u8";
        default:
            return "";
    }
}

CaseFile LoadCase(const std::filesystem::path& path, std::optional<Platform> platform) {
    const json root = ReadJson(path);
    const std::string where = path.string();
    if (!root.is_object()) throw IoError(StrCat(where, ": the case must be a JSON object"));
    RejectUnknownKeys(root, {"op", "platform", "param", "inputs", "outputs", "description"}, where);
    CaseFile c;
    c.path = path;
    c.param =
        ParseParam(StringMember(root, "op", where), root.contains("param") ? root["param"] : json::object());
    if (root.contains("platform")) {
        const std::string name = StringMember(root, "platform", where);
        const std::optional<Platform> parsed = ParsePlatform(name);
        if (!parsed) {
            throw IoError(StrCat(where, ": unknown platform \"", name,
                                 "\" (expected atlas-a2, atlas-inference, atlas-training or atlas-350)"));
        }
        c.platform = *parsed;
    }
    if (platform) c.platform = *platform;
    const json& inputs = Member(root, "inputs", where);
    const json& outputs = Member(root, "outputs", where);
    if (!inputs.is_array() || !outputs.is_array())
        throw IoError(StrCat(where, ": \"inputs\" and \"outputs\" must be arrays"));
    const std::filesystem::path dir = path.parent_path();
    for (size_t i = 0; i < inputs.size(); ++i)
        c.inputs.push_back(LoadInput(inputs[i], dir, i));
    for (size_t i = 0; i < outputs.size(); ++i)
        c.outputFiles.push_back(OutputFile(outputs[i], i));
    return c;
}

}  // namespace atbx::io
