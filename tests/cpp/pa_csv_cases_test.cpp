// ATB's own PagedAttention test sheet (tests/apitest/opstest/csv/paged_attention.csv, paged_attention.md 5.3)
// as a table: each row's param, input dtypes, formats and shapes as the sheet writes them, and the outcome
// ATB expects: "C:" CreateOperation, "I:" InferShape, "S:" Setup fail with that status; NO_ERROR rows are
// valid calls. Rows whose shapes are too large for a fast test are shrunk (fewer blocks, fewer batches) where
// the row's point survives; their note says so. Where atbx deliberately differs from the sheet (a rule of the
// seed or DECISIONS.md, or a check ATB makes only in its kernel), the expected outcome is atbx's and the note
// says why. Host values ("customize" in the sheet) are chosen here to fit the row's shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "atbx/operation.h"
#include "support/pa_case_helpers.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

constexpr Platform kA2 = Platform::kAtlasA2;
constexpr Platform kInference = Platform::kAtlasInference;
constexpr Platform kTraining = Platform::kAtlasTraining;
constexpr Platform k350 = Platform::kAtlas350;

struct HostValues {
    std::vector<int32_t> contextLens;
    std::vector<int32_t> qSeqLen;
};

struct CsvRow {
    std::string sheet;  // "910B", "950"
    int number = 0;
    std::string name;
    Platform platform = kA2;
    std::string param;  // the row's OpParam JSON
    std::string dtypes, formats, shapes;
    std::string outDtype, outShape;
    std::string expected;  // "NO_ERROR", "C:ERROR_INVALID_PARAM", "I:...", "S:..."
    HostValues host;
    std::string note;  // shrunk shapes, or why atbx's outcome differs from the sheet's
};

void PrintTo(const CsvRow& row, std::ostream* out) {
    *out << row.sheet << " row " << row.number << " " << row.name;
}

std::vector<std::string> Split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, separator)) {
        part.erase(0, part.find_first_not_of(' '));
        part.erase(part.find_last_not_of(' ') + 1);
        parts.push_back(part);
    }
    return parts;
}

aclDataType SheetDtype(const std::string& name) {
    if (name == "float16") return ACL_FLOAT16;
    if (name == "bf16") return ACL_BF16;
    if (name == "float" || name == "float32") return ACL_FLOAT;
    if (name == "int8") return ACL_INT8;
    if (name == "int32") return ACL_INT32;
    if (name == "int64") return ACL_INT64;
    ADD_FAILURE() << "unknown sheet dtype " << name;
    return ACL_DT_UNDEFINED;
}

aclFormat SheetFormat(const std::string& name) {
    return name == "fractal_nz" ? ACL_FORMAT_FRACTAL_NZ : ACL_FORMAT_ND;
}

Dims SheetShape(const std::string& text) {
    Dims shape;
    for (const std::string& d : Split(text, ','))
        shape.dims[shape.dimNum++] = std::stoll(d);
    return shape;
}

SVector<TensorDesc> InputDescs(const CsvRow& row) {
    const auto dtypes = Split(row.dtypes, ';');
    const auto formats = Split(row.formats, ';');
    const auto shapes = Split(row.shapes, ';');
    SVector<TensorDesc> descs;
    for (size_t i = 0; i < shapes.size(); ++i) {
        TensorDesc desc;
        desc.dtype = SheetDtype(dtypes.at(i));
        desc.format = SheetFormat(formats.at(i));
        desc.shape = SheetShape(shapes[i]);
        descs.push_back(desc);
    }
    return descs;
}

struct Outcome {
    char at = 0;  // 'C', 'I', 'S', or 0 for NO_ERROR
    ErrorType code = NO_ERROR;
};

Outcome ParseOutcome(const std::string& text) {
    Outcome outcome;
    std::string name = text;
    if (text.size() > 2 && text[1] == ':') {
        outcome.at = text[0];
        name = text.substr(2);
    }
    for (int code = NO_ERROR; code <= ERROR_COPY_HOST_MEMORY_FAIL; ++code) {
        if (name == ErrorTypeName(static_cast<ErrorType>(code))) outcome.code = static_cast<ErrorType>(code);
    }
    EXPECT_EQ(name, ErrorTypeName(outcome.code)) << "unknown status in the sheet";
    return outcome;
}

// A call with the row's descriptors and data: every block id in range, the row's host values.
TestCall MakeCall(const CsvRow& row, const PaParam& param, const SVector<TensorDesc>& descs,
                  const TensorDesc& output) {
    TestCall call;
    call.param = param;
    call.platform = row.platform;
    NameInputs(call);
    for (size_t i = 0; i < descs.size(); ++i) {
        io::HostTensor t = ZeroTensor(descs[i]);
        const std::string name = i < call.inputNames.size() ? call.inputNames[i] : "";
        const int64_t count = static_cast<int64_t>(ElementCount(descs[i]));
        if (name == "contextLens") {
            t = Int32Tensor(row.host.contextLens);
        } else if (name == "qSeqLen") {
            t = Int32Tensor(row.host.qSeqLen);
        } else if (name == "batchRunStatus") {
            t = Int32Tensor(std::vector<int32_t>(count, 1));
        } else if (name == "blockTables") {
            const int64_t blocks = descs[1].shape.dims[0];
            auto ids = Elements<int32_t>(t);
            for (int64_t k = 0; k < count; ++k)
                ids[k] = static_cast<int32_t>(k % blocks);
        } else {
            // Validation reads host values and block ids only; any non-zero bytes do for the rest.
            std::fill(t.bytes.begin(), t.bytes.end(), uint8_t{0x11});
        }
        call.inputs.push_back(std::move(t));
    }
    call.outputs.push_back(ZeroTensor(output));
    return call;
}

class PaCsvTest : public testing::TestWithParam<CsvRow> {};

TEST_P(PaCsvTest, GivesTheSheetsOutcome) {
    const CsvRow& row = GetParam();
    const Outcome expected = ParseOutcome(row.expected);
    const PaParam param =
        std::get<PaParam>(io::ParseParam("PagedAttention", nlohmann::json::parse(row.param)));
    SCOPED_TRACE(row.note);

    Operation* raw = nullptr;
    const Status created = CreateOperation(param, &raw, row.platform);
    std::unique_ptr<Operation> op(raw);
    if (expected.at == 'C') {
        EXPECT_EQ(created.code(), expected.code) << created.ToString();
        return;
    }
    ASSERT_TRUE(created.ok()) << created.ToString();

    const SVector<TensorDesc> descs = InputDescs(row);
    SVector<TensorDesc> outputs;
    const Status inferred = op->InferShape(descs, outputs);
    if (expected.at == 'I') {
        EXPECT_EQ(inferred.code(), expected.code) << inferred.ToString();
        return;
    }
    ASSERT_TRUE(inferred.ok()) << inferred.ToString();

    TensorDesc output = outputs.at(0);
    output.dtype = SheetDtype(row.outDtype);
    output.shape = SheetShape(row.outShape);
    TestCall call = MakeCall(row, param, descs, output);
    if (expected.at == 'S') {
        const VariantPack pack = call.Pack();
        Context context{row.platform, 1, Backend::kReference};
        uint64_t workspaceSize = 0;
        const Status setup = op->Setup(pack, workspaceSize, &context);
        EXPECT_EQ(setup.code(), expected.code) << setup.ToString();
        return;
    }
    EXPECT_EQ(ShapeToString(outputs[0].shape), ShapeToString(output.shape));
    EXPECT_EQ(outputs[0].dtype, output.dtype);
    EXPECT_TRUE(ViolatedRules(call).empty()) << DescribeViolations(call);
}

std::string RowName(const testing::TestParamInfo<CsvRow>& info) {
    const CsvRow& row = info.param;
    std::string name = "sheet" + row.sheet + "_row" + std::to_string(row.number) + "_" +
                       PlatformName(row.platform) + "_" + row.name;
    std::replace_if(
        name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
    return name + "_" + std::to_string(info.index);
}

// Shapes of the 910B sheet's plain rows: q [4, 32, 32], caches [4, 256, 32, 32], blockTables [4, 32].
const char* const kPlain =
    R"({"headNum":32,"qkScale":0.5,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":0})";
const char* const kPlainTypes = "float16;float16;float16;int32;int32";
const char* const kNd5 = "nd;nd;nd;nd;nd";
const char* const kNz5 = "nd;fractal_nz;fractal_nz;nd;nd";
const char* const kGqa =
    R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":0})";
const char* const kMha32 =
    R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":0})";
const char* const kShrunkNz = "shrunk: 64 -> 4 blocks";

std::vector<CsvRow> Sheet910BNegative() {
    const HostValues none;
    return {
        {"910B", 2, "WrongParam1", kA2, R"({"headNum":0,"qkScale":0.5,"kvHeadNum":32})", "", "", "", "", "",
         "C:ERROR_INVALID_PARAM", none, ""},
        {"910B", 3, "WrongParam2", kA2, R"({"headNum":-1,"qkScale":0.5,"kvHeadNum":32})", "", "", "", "", "",
         "C:ERROR_INVALID_PARAM", none, ""},
        {"910B", 4, "WrongParam3", kA2, R"({"headNum":2,"qkScale":0.5,"kvHeadNum":-2})", "", "", "", "", "",
         "C:ERROR_INVALID_PARAM", none, ""},
        {"910B", 5, "WrongParam4", kA2, R"({"headNum":2,"qkScale":0.5,"kvHeadNum":-1})", "", "", "", "", "",
         "C:ERROR_INVALID_PARAM", none, ""},
        {"910B", 6, "WrongParam5", kA2, R"({"headNum":50,"qkScale":0.5,"kvHeadNum":32})", "", "", "", "", "",
         "C:ERROR_INVALID_PARAM", none, ""},
        {"910B", 7, "WrongDtype1", kA2, kGqa, "int32;float16;float16;int32;int32", kNd5,
         "4,32,32;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_INI_MATCH",
         none, ""},
        {"910B", 8, "WrongDtype2", kA2, kGqa, "float16;float;float16;int32;int32", kNd5,
         "4,32,32;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_INI_MATCH",
         none, ""},
        {"910B", 9, "WrongDtype3", kA2, kGqa, "float16;float16;float;int32;int32", kNd5,
         "4,32,32;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_INI_MATCH",
         none, ""},
        {"910B", 10, "WrongDtype4", kA2, kGqa, "float16;float16;float16;float16;int32", kNd5,
         "4,32,32;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_INI_MATCH",
         none, ""},
        {"910B", 11, "WrongDtype5", kA2, kGqa, "float16;float16;float16;int32;float16", kNd5,
         "4,32,32;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_INI_MATCH",
         none, ""},
        {"910B",
         12,
         "WrongDtype6",
         kA2,
         kGqa,
         kPlainTypes,
         kNd5,
         "4,32,32;4,256,16,32;4,256,16,32;4,32;4",
         "int32",
         "4,32,32",
         "S:ERROR_INVALID_TENSOR_INI_MATCH",
         {{300, 17, 256, 1000}, {}},
         "caches [4,256,32,32] -> [4,256,16,32]: the sheet's 32 cache heads contradict kvHeadNum 16, which "
         "atbx "
         "checks at InferShape (DECISIONS 10) before the output dtype"},
        {"910B", 14, "InfershapeFail", kA2, kPlain, "int32;float16;float16;int32;int32", kNd5,
         "4,32,32;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_INI_MATCH",
         none, ""},
        {"910B", 15, "InfershapeFail1", kA2, kPlain, kPlainTypes, kNd5,
         "4,32,256;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM", none,
         ""},
        {"910B", 16, "WrongDim1", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,255,32,32;4,256,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM", none, ""},
        {"910B", 17, "WrongDim2", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32;4,256,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM_NUM", none, ""},
        {"910B", 18, "WrongDim3", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32,256;4,256,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM", none, ""},
        {"910B", 19, "WrongDim4", kA2, kPlain, kPlainTypes, kNd5, "4,32,32,4;4,256,32;4,256,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM_NUM", none, ""},
        {"910B", 20, "WrongDim5", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32,32;4,256,32,32;4,32,4;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM_NUM", none, ""},
        {"910B", 21, "WrongDim6", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32,32;4,256,32,32;4,32;4,32",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM_NUM", none, ""},
        {"910B", 22, "WrongDim7", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32,32;4,256,32,32;32,32;4,4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM_NUM", none, ""},
        {"910B", 23, "WrongDim8", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32;32,256,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM_NUM", none, ""},
        {"910B", 24, "WrongDim9", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32;4,256,32,32;32,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM_NUM", none, ""},
        {"910B", 25, "WrongDim12", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32,32;32,256,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM", none, ""},
        {"910B", 26, "WrongDim13", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32,32;4,32,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM", none, ""},
        {"910B", 27, "WrongFormat", kA2, kPlain, kPlainTypes, "fractal_nz;nd;nd;nd;nd",
         "4,32,32;4,256,32,32;4,256,32,32;4,32;4", "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_INI_MATCH",
         none, ""},
        {"910B", 29, "WrongDim14", kA2, kPlain, kPlainTypes, kNd5, "4,32,32;4,256,32,32;4,256,32,577;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM", none, ""},
        {"910B", 30, "WrongDim15", kA2, kPlain, kPlainTypes, kNd5, "4,32,577;4,256,32,577;4,256,32,32;4,32;4",
         "float16", "4,32,32", "I:ERROR_INVALID_TENSOR_DIM", none, ""},
    };
}

// Rows of the 310P/910A columns run on atlas-inference and atlas-training both.
std::vector<CsvRow> Sheet910BNz() {
    std::vector<CsvRow> rows;
    const HostValues none;
    const auto both = [&rows](CsvRow row) {
        row.platform = kInference;
        rows.push_back(row);
        row.platform = kTraining;
        rows.push_back(row);
    };
    const char* nzOut = "2,32,128";
    both({"910B",
          28,
          "310PNoAlibi",
          kA2,
          kMha32,
          kPlainTypes,
          kNz5,
          "2,32,128;4,256,32,16;4,256,32,16;2,16;2",
          "float16",
          nzOut,
          "NO_ERROR",
          {{500, 77}, {}},
          kShrunkNz});
    both({"910B", 31, "310PWrongDim1", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,256,32,16;64,256,32,32;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    both({"910B", 32, "310PWrongDim2", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,256,32,32;64,256,32,16;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    both({"910B", 33, "310PWrongDim3", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,128,32,16;64,256,32,16;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    both({"910B", 34, "310PWrongDim4", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,256,64,16;64,256,32,16;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    both({"910B", 35, "310PWrongDim5", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,1024,16,16;64,1024,16,16;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    both({"910B", 36, "310PWrongDim6", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,256,256,16;64,256,256,16;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    both(
        {"910B", 47, "910BMlaWrongParam8", kA2,
         R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":1,"quantType":0,"scaleType":0})",
         "", "", "", "", "", "C:ERROR_INVALID_PARAM", none, ""});
    both({"910B", 62, "310PWrongHeadsize1", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,250,32,16;64,256,32,16;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    both({"910B", 63, "310PWrongHeadsize2", kA2, kMha32, kPlainTypes, kNz5,
          "2,32,128;64,250,32,16;64,250,32,16;2,16;2", "float16", nzOut, "I:ERROR_INVALID_TENSOR_DIM", none,
          ""});
    const char* base = "4,32,128;4,256,64,16;4,256,64,16;4,32;4";
    both({"910B",
          78,
          "BaseNZ",
          kA2,
          kMha32,
          kPlainTypes,
          kNz5,
          base,
          "float16",
          "4,32,128",
          "NO_ERROR",
          {{2048, 1, 640, 99}, {}},
          ""});
    both(
        {"910B",
         79,
         "NormMaskNZ",
         kA2,
         R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":1,"quantType":0,"scaleType":0})",
         "float16;float16;float16;int32;int32;float16",
         "nd;fractal_nz;fractal_nz;nd;nd;fractal_nz",
         "4,32,128;4,256,64,16;4,256,64,16;4,32;4;4,16,16,16",
         "float16",
         "4,32,128",
         "NO_ERROR",
         {{256, 1, 130, 99}, {}},
         ""});
    both(
        {"910B",
         80,
         "AlibiMaskNZ",
         kA2,
         R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":2,"quantType":0,"scaleType":0})",
         "float16;float16;float16;int32;int32;float16",
         "nd;fractal_nz;fractal_nz;nd;nd;fractal_nz",
         "4,32,128;4,256,64,16;4,256,64,16;4,32;4;128,16,16,16",
         "float16",
         "4,32,128",
         "NO_ERROR",
         {{256, 1, 130, 99}, {}},
         ""});
    for (CsvRow& row : rows)
        row.sheet = "910B";
    return rows;
}

// Param rows: MLA, 910A, logN and the reserved bytes (the inputs do not matter: CreateOperation fails).
std::vector<CsvRow> Sheet910BParam() {
    const HostValues none;
    const auto param = [&none](int number, const char* name, Platform platform, const char* json) {
        return CsvRow{"910B", number, name, platform, json, "", "", "", "", "", "C:ERROR_INVALID_PARAM",
                      none,   ""};
    };
    return {
        param(
            40, "910BMlaWrongParam", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":1,"maskType":1,"quantType":0,"scaleType":0})"),
        param(
            41, "910BMlaWrongParam2", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":1,"compressType":0,"maskType":1,"quantType":0,"scaleType":0})"),
        param(
            42, "910BMlaWrongParam3", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":1,"quantType":0,"scaleType":1})"),
        param(
            43, "910BMlaWrongParam4", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":1,"quantType":0,"inputLayout":1})"),
        param(
            44, "910BMlaWrongParam5", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":2,"quantType":0,"inputLayout":0})"),
        param(
            45, "910BMlaWrongParam6", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":3,"quantType":0,"inputLayout":0})"),
        param(
            46, "910BMlaWrongParam7", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":577,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":1,"quantType":0,"inputLayout":0})"),
        param(
            48, "910BMlaWrongParam9", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":1,"quantType":1,"scaleType":0})"),
        param(
            53, "910BMlaQuantWrongParam", kA2,
            R"({"headNum":32,"qkScale":0.08,"mlaVHeadSize":576,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":1,"quantType":2,"scaleType":0})"),
        param(
            54, "910AWrongMask", kTraining,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":3,"quantType":0,"scaleType":0})"),
        param(
            55, "910AWrongCalctype", kTraining,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":1,"compressType":0,"maskType":0,"quantType":0,"scaleType":0})"),
        param(
            56, "910AWrongScaleType", kTraining,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":1})"),
        param(
            57, "910AWrongInputLayout", kTraining,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":0,"inputLayout":1})"),
        param(
            58, "LognAndDequant", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":0,"quantType":1,"scaleType":1})"),
        param(
            59, "LognAndSPEC", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"calcType":1,"compressType":0,"maskType":0,"quantType":0,"scaleType":1})"),
        param(
            60, "LognAndCompress", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"calcType":0,"compressType":1,"maskType":0,"quantType":0,"scaleType":1})"),
        param(61, "rsv", kA2, R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"rsv":[1]})"),
        param(
            97, "MLACombine", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"calcType":0,"mlaVHeadSize":96,"maskType":0,"quantType":0,"scaleType":0})"),
        param(
            101, "MLAWrongHead", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"calcType":0,"mlaVHeadSize":96,"maskType":0,"quantType":0,"scaleType":0})"),
        param(
            102, "MTPWrongMASK1", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":1,"calcType":1,"mlaVHeadSize":96,"maskType":1,"quantType":0,"scaleType":0})"),
        param(
            103, "MTPWrongMASK2", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":1,"calcType":1,"mlaVHeadSize":96,"maskType":2,"quantType":0,"scaleType":0})"),
        param(
            106, "MTPWrongDB", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":1,"calcType":1,"mlaVHeadSize":96,"maskType":0,"quantType":0,"batchRunStatusEnable":true})"),
        param(
            107, "MTPWrongQuant", kA2,
            R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":1,"calcType":1,"mlaVHeadSize":96,"maskType":0,"quantType":2,"scaleType":0})"),
    };
}

// Shape rows of MLA and compression.
std::vector<CsvRow> Sheet910BMlaShapes() {
    const HostValues none;
    const auto mla = [](int vHead, int heads, int kvHeads, int calcType) {
        return R"({"headNum":)" + std::to_string(heads) + R"(,"qkScale":0.08,"mlaVHeadSize":)" +
               std::to_string(vHead) + R"(,"kvHeadNum":)" + std::to_string(kvHeads) + R"(,"calcType":)" +
               std::to_string(calcType) + "}";
    };
    return {
        {"910B", 49, "910BMlaWrongDim", kA2, mla(576, 32, 1, 0), "float16;float16;int32;int32", "nd;nd;nd;nd",
         "4,32,577;4,256,1,577;4,32;4", "float16", "4,32,576", "I:ERROR_INVALID_TENSOR_DIM", none, ""},
        {"910B", 50, "910BMlaWrongDim1", kA2, mla(576, 32, 1, 0), "float16;float16;int32;int32",
         "nd;nd;nd;nd", "4,32,256;4,256,1,256;4,32;4", "float16", "4,32,576", "I:ERROR_INVALID_TENSOR_DIM",
         none, ""},
        {"910B", 51, "910BMlaWrongDim2", kA2, mla(128, 32, 1, 0), "float16;float16;int32;int32",
         "nd;nd;nd;nd", "4,32,512;4,256,1,512;4,32;4", "float16", "4,32,128", "I:ERROR_INVALID_TENSOR_DIM",
         none, ""},
        {"910B", 52, "910BMlaWrongDim3", kA2, kGqa, kPlainTypes, kNd5,
         "4,32,512;4,256,16,512;4,256,16,512;4,32;4", "float16", "4,32,512", "I:ERROR_INVALID_TENSOR_DIM",
         none, ""},
        {"910B", 100, "Razor&MLA", kA2,
         R"({"headNum":8,"qkScale":0.08838834764831843,"kvHeadNum":8,"calcType":0,"compressType":1,"maskType":2,"quantType":0,"scaleType":0})",
         "float16;float16;float16;int32;int32;float16", "nd;nd;nd;nd;nd;nd",
         "1,8,128;256,64,1,128;256,64,1,96;8,4;8;1,8,1,256", "float16", "1,8,96",
         "I:ERROR_INVALID_TENSOR_DIM", none, ""},
        {"910B", 108, "MTPWrongBlocksize", kA2, mla(512, 32, 1, 1), "float16;float16;int32;int32;int32",
         "nd;nd;nd;nd;nd", "4,32,576;4,256,1,576;4,32;4;4", "float16", "4,32,512",
         "I:ERROR_INVALID_TENSOR_DIM", none,
         "qSeqLen [2] -> [4] (one entry per batch), so that the block size is the row's only fault"},
        {"910B", 109, "MLAOver8kBS", kA2, mla(96, 32, 1, 0), "float16;float16;int32;int32", "nd;nd;nd;nd",
         "8193,32,128;8193,64,1,128;8193,32;8193", "float16", "8193,32,96", "I:ERROR_INVALID_TENSOR_DIM",
         none, ""},
    };
}

// Valid calls of the 910B sheet, with atbx's outcome where it differs.
std::vector<CsvRow> Sheet910BPositive() {
    const char* types6 = "float16;float16;float16;int32;int32;float16";
    const char* nd6 = "nd;nd;nd;nd;nd;nd";
    const char* nd7 = "nd;nd;nd;nd;nd;nd;nd";
    const auto json = [](const char* fields) {
        return std::string(R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16)") + fields + "}";
    };
    const HostValues ctx256{{256, 1, 130, 99}, {}};
    const char* base = "4,32,128;4,64,16,128;4,64,16,128;4,32;4";
    const std::string norm = json(R"(,"maskType":1)");
    const std::string alibi = json(R"(,"maskType":2)");
    const std::string logn = json(R"(,"scaleType":1)");
    const std::string batch = json(R"(,"batchRunStatusEnable":true)");
    const std::string dequant = json(R"(,"quantType":1)");
    const std::string offsets = json(R"(,"quantType":1,"hasQuantOffset":true)");
    const char* fourDNorm = "a 4-D NORM mask is rejected (DECISIONS 5); the sheet only runs op-level checks";
    const char* alibiHeads =
        "an ALIBI [4, 1, 256] mask is neither [headNum, 1, S] nor [B, headNum, 1, S]; ATB's kernel rejects "
        "it too";
    return {
        {"910B",
         1,
         "910BNoAlibi",
         kA2,
         kGqa,
         kPlainTypes,
         kNd5,
         "4,32,32;4,256,16,32;4,256,16,32;4,32;4",
         "float16",
         "4,32,32",
         "NO_ERROR",
         {{300, 17, 256, 1000}, {}},
         ""},
        {"910B",
         38,
         "910BNoAlibiLognFp16",
         kA2,
         json(R"(,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float",
         nd6,
         "4,32,32;4,256,16,32;4,256,16,32;4,32;4;4",
         "float16",
         "4,32,32",
         "NO_ERROR",
         {{300, 17, 256, 1000}, {}},
         ""},
        {"910B",
         39,
         "910BNoAlibiLognBf16",
         kA2,
         json(R"(,"scaleType":1)"),
         "bf16;bf16;bf16;int32;int32;float",
         nd6,
         "4,32,32;4,256,16,32;4,256,16,32;4,32;4;4",
         "bf16",
         "4,32,32",
         "NO_ERROR",
         {{300, 17, 256, 1000}, {}},
         ""},
        {"910B",
         64,
         "Base",
         kA2,
         kGqa,
         kPlainTypes,
         kNd5,
         base,
         "float16",
         "4,32,128",
         "NO_ERROR",
         {{2048, 1, 640, 99}, {}},
         ""},
        {"910B", 65, "NormMask", kA2, norm, types6, nd6, "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,1,256",
         "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 66, "AlibiMask", kA2, alibi, types6, nd6,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,32,1,256", "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 67, "LogN", kA2, logn, "float16;float16;float16;int32;int32;float", nd6,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4", "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 68, "NormMaskLogN", kA2, json(R"(,"maskType":1,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16;float", nd7,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,32,1,256;4", "float16", "4,32,128",
         "S:ERROR_INVALID_TENSOR_DIM", ctx256, fourDNorm},
        {"910B", 69, "AlibiMaskLogN", kA2, json(R"(,"maskType":2,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16;float", nd7,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,1,256;4", "float16", "4,32,128",
         "S:ERROR_INVALID_TENSOR_DIM", ctx256, alibiHeads},
        {"910B", 70, "DynamicBatch", kA2, batch, "float16;float16;float16;int32;int32;int32", nd6,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4", "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 71, "NormMaskDB", kA2, json(R"(,"batchRunStatusEnable":true,"maskType":1)"),
         "float16;float16;float16;int32;int32;float16;int32", nd7,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,1,256;4", "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 72, "AlibiMaskDB", kA2, json(R"(,"batchRunStatusEnable":true,"maskType":2)"),
         "float16;float16;float16;int32;int32;float16;int32", nd7,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,32,1,256;4", "float16", "4,32,128", "NO_ERROR", ctx256,
         ""},
        {"910B", 73, "LogNDB", kA2, json(R"(,"batchRunStatusEnable":true,"scaleType":1)"),
         "float16;float16;float16;int32;int32;int32;float", nd7,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4;4", "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 74, "NormMaskLogNDB", kA2,
         json(R"(,"batchRunStatusEnable":true,"maskType":1,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16;int32;float", "nd;nd;nd;nd;nd;nd;nd;nd",
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,32,1,256;4;4", "float16", "4,32,128",
         "S:ERROR_INVALID_TENSOR_DIM", ctx256, fourDNorm},
        {"910B", 75, "AlibiMaskLogNDB", kA2,
         json(R"(,"batchRunStatusEnable":true,"maskType":2,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16;int32;float", "nd;nd;nd;nd;nd;nd;nd;nd",
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,1,256;4;4", "float16", "4,32,128",
         "S:ERROR_INVALID_TENSOR_DIM", ctx256, alibiHeads},
        {"910B",
         76,
         "SPEC",
         kA2,
         json(R"(,"calcType":1,"maskType":3)"),
         "float16;float16;float16;int32;int32;float16;int32",
         nd7,
         "10,32,128;8,64,16,128;8,64,16,128;4,16;4;10,256;4",
         "float16",
         "10,32,128",
         "NO_ERROR",
         {{17, 100, 256, 40}, {1, 2, 3, 4}},
         "shrunk: 32 -> 8 blocks"},
        {"910B",
         77,
         "SPEC&Norm",
         kA2,
         json(R"(,"calcType":1,"maskType":1)"),
         "float16;float16;float16;int32;int32;float16;int32",
         nd7,
         "10,32,128;8,64,16,128;8,64,16,128;4,16;4;4,1,256;4",
         "float16",
         "10,32,128",
         "S:ERROR_INVALID_TENSOR_DIM",
         {{17, 100, 256, 40}, {1, 2, 3, 4}},
         "a [B, 1, S] NORM mask cannot serve query rows 2 to 4 with calcType SPEC (ATB's kernel needs "
         "dims[1] >= "
         "maxQ; atbx reads [B, S, S], DECISIONS 5); shrunk: 32 -> 8 blocks"},
        {"910B",
         87,
         "RazorBatch",
         kA2,
         R"({"headNum":8,"qkScale":0.08838834764831843,"kvHeadNum":8,"batchRunStatusEnable":true,"compressType":1,"maskType":2})",
         "float16;float16;float16;int32;int32;float16;int32",
         nd7,
         "1,8,128;16,64,1,128;16,64,1,128;8,4;8;1,8,1,256;8",
         "float16",
         "1,8,128",
         "NO_ERROR",
         {{256, 1, 130, 99, 64, 65, 200, 7}, {}},
         "shrunk: 256 -> 16 blocks"},
        {"910B", 88, "Dequant", kA2, dequant, "float16;int8;int8;int32;int32;float;float", nd7,
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;2048;2048", "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 89, "DequantNorm", kA2, json(R"(,"maskType":1,"quantType":1)"),
         "float16;int8;int8;int32;int32;float16;float;float", "nd;nd;nd;nd;nd;nd;nd;nd",
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,1,256;2048;2048", "float16", "4,32,128", "NO_ERROR",
         ctx256, ""},
        {"910B", 90, "DequantAlibi", kA2, json(R"(,"maskType":2,"quantType":1)"),
         "float16;int8;int8;int32;int32;float16;float;float", "nd;nd;nd;nd;nd;nd;nd;nd",
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,32,1,256;2048;2048", "float16", "4,32,128", "NO_ERROR",
         ctx256, ""},
        {"910B", 91, "DequantOffset", kA2, offsets, "float16;int8;int8;int32;int32;float;int32;float;int32",
         "nd;nd;nd;nd;nd;nd;nd;nd;nd", "4,32,128;4,64,16,128;4,64,16,128;4,32;4;2048;2048;2048;2048",
         "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 92, "DequantOffsetNorm", kA2, json(R"(,"hasQuantOffset":true,"maskType":1,"quantType":1)"),
         "float16;int8;int8;int32;int32;float16;float;int32;float;int32", "nd;nd;nd;nd;nd;nd;nd;nd;nd;nd",
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,1,256;2048;2048;2048;2048", "float16", "4,32,128",
         "NO_ERROR", ctx256, ""},
        {"910B", 93, "DequantOffsetAlibi", kA2, json(R"(,"hasQuantOffset":true,"maskType":2,"quantType":1)"),
         "float16;int8;int8;int32;int32;float16;float;int32;float;int32", "nd;nd;nd;nd;nd;nd;nd;nd;nd;nd",
         "4,32,128;4,64,16,128;4,64,16,128;4,32;4;4,32,1,256;2048;2048;2048;2048", "float16", "4,32,128",
         "NO_ERROR", ctx256, ""},
        {"910B",
         95,
         "Quant",
         kA2,
         R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":2,"calcType":0,"compressType":0,"maskType":1,"quantType":3,"outDataType":1})",
         "int8;int8;int8;int32;int32;float16;float;float",
         "nd;nd;nd;nd;nd;nd;nd;nd",
         "9,32,128;64,128,2,128;64,128,2,128;9,110;9;9,1,14000;32;32",
         "float16",
         "9,32,128",
         "NO_ERROR",
         {{3000, 300, 14000, 33, 65, 1, 16, 14000, 300}, {}},
         ""},
        {"910B", 96, "MLA", kA2, kGqa, kPlainTypes, kNd5, "4,32,128;4,64,16,128;4,64,16,96;4,32;4", "float16",
         "4,32,96", "NO_ERROR", ctx256, ""},
        {"910B",
         98,
         "BNSD",
         kA2,
         json(R"(,"inputLayout":1)"),
         kPlainTypes,
         kNd5,
         "4,32,128;4,16,64,128;4,16,64,128;4,32;4",
         "float16",
         "4,32,128",
         "NO_ERROR",
         {{2048, 1, 640, 99}, {}},
         ""},
        {"910B",
         104,
         "910BNoMlaBf16",
         kA2,
         R"({"headNum":40,"qkScale":0.08838834764831843,"kvHeadNum":10,"maskType":1})",
         "bf16;bf16;bf16;int32;int32;bf16",
         nd6,
         "16,40,256;4,256,10,256;4,256,10,256;16,12;16;16,1,100",
         "bf16",
         "16,40,256",
         "NO_ERROR",
         {{100, 1, 50, 99, 3, 17, 100, 64, 65, 2, 33, 80, 91, 100, 10, 5}, {}},
         "shrunk: 64 -> 4 blocks"},
        {"910B",
         105,
         "910BNoMlafp16",
         kA2,
         R"({"headNum":40,"qkScale":0.08838834764831843,"kvHeadNum":10,"maskType":1})",
         types6,
         nd6,
         "16,40,256;4,256,10,256;4,256,10,256;16,12;16;16,1,100",
         "float16",
         "16,40,256",
         "NO_ERROR",
         {{100, 1, 50, 99, 3, 17, 100, 64, 65, 2, 33, 80, 91, 100, 10, 5}, {}},
         "shrunk: 64 -> 4 blocks"},
    };
}

// atlas-inference rows of the 910B sheet (310P only): logN, SPEC, MASK_FREE, BNSD.
std::vector<CsvRow> Sheet910BInference() {
    const char* nz6 = "nd;fractal_nz;fractal_nz;nd;nd;nd";
    const HostValues ctx256{{256, 1, 130, 99}, {}};
    const auto json = [](const char* fields) {
        return std::string(R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32)") + fields + "}";
    };
    const auto maskFree = [](int heads) {
        return R"({"headNum":)" + std::to_string(heads) + R"(,"qkScale":0.08838834764831843,"kvHeadNum":)" +
               std::to_string(heads) + R"(,"calcType":1,"maskType":4})";
    };
    const char* maskFreeTypes = "float16;float16;float16;int32;int32;float16;int32";
    const char* maskFreeFormats = "nd;fractal_nz;fractal_nz;nd;nd;fractal_nz;nd";
    return {
        {"910B",
         37,
         "310PNoAlibiLognFp16",
         kInference,
         json(R"(,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16",
         nz6,
         "2,32,128;4,256,32,16;4,256,32,16;2,16;2;2",
         "float16",
         "2,32,128",
         "NO_ERROR",
         {{500, 77}, {}},
         kShrunkNz},
        {"910B",
         81,
         "SPECNZ",
         kInference,
         json(R"(,"calcType":1,"maskType":3)"),
         "float16;float16;float16;int32;int32;float16;int32",
         "nd;fractal_nz;fractal_nz;nd;nd;fractal_nz;nd",
         "10,32,128;4,256,32,16;4,256,32,16;10,16;4;1,16,10,16;4",
         "float16",
         "10,32,128",
         "S:ERROR_INVALID_TENSOR_DIM",
         {{17, 100, 256, 40}, {1, 2, 3, 4}},
         "an NZ mask needs at least 16 rows ([1, 16, 10, 16] has 10; ATB's kernel rejects it too)"},
        {"910B", 82, "LogNNZ", kInference, json(R"(,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16", nz6, "4,32,128;4,256,64,16;4,256,64,16;4,32;4;4",
         "float16", "4,32,128", "NO_ERROR", ctx256, ""},
        {"910B", 83, "NormMaskLogNNZ", kInference, json(R"(,"maskType":1,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16;float16",
         "nd;fractal_nz;fractal_nz;nd;nd;fractal_nz;nd",
         "4,32,128;4,256,64,16;4,256,64,16;4,32;4;4,16,16,16;4", "float16", "4,32,128", "NO_ERROR", ctx256,
         ""},
        {"910B", 84, "AlibiMaskLogNNZ", kInference, json(R"(,"maskType":2,"scaleType":1)"),
         "float16;float16;float16;int32;int32;float16;float16",
         "nd;fractal_nz;fractal_nz;nd;nd;fractal_nz;nd",
         "4,32,128;4,256,64,16;4,256,64,16;4,32;4;128,16,16,16;4", "float16", "4,32,128", "NO_ERROR", ctx256,
         ""},
        {"910B",
         99,
         "BNSDNZ",
         kInference,
         json(R"(,"inputLayout":1)"),
         kPlainTypes,
         kNz5,
         "4,32,128;4,256,64,16;4,256,64,16;4,32;4",
         "float16",
         "4,32,128",
         "NO_ERROR",
         {{2048, 1, 640, 99}, {}},
         ""},
        {"910B",
         110,
         "FreeNZ",
         kInference,
         maskFree(1),
         maskFreeTypes,
         maskFreeFormats,
         "256,1,128;8,8,128,16;8,8,128,16;1,4;1;1,8,128,16;1",
         "float16",
         "256,1,128",
         "S:ERROR_INVALID_TENSOR_DIM",
         {{1024}, {256}},
         "blockTables [1, 4] covers 512 keys, contextLens 1024 needs 8 blocks (seed: "
         "max_num_blocks_per_seq); "
         "shrunk: 1024 -> 8 blocks"},
        {"910B",
         111,
         "FreeNZ2",
         kInference,
         maskFree(1),
         maskFreeTypes,
         maskFreeFormats,
         "256,1,128;8,8,128,16;8,8,128,16;1,4;1;1,8,128,16;1",
         "float16",
         "256,1,128",
         "NO_ERROR",
         {{512}, {256}},
         "shrunk: 1024 -> 8 blocks"},
        {"910B",
         112,
         "FreeNZ3",
         kInference,
         maskFree(4),
         maskFreeTypes,
         maskFreeFormats,
         "256,4,128;8,32,128,16;8,32,128,16;1,4;1;1,8,128,16;1",
         "float16",
         "256,4,128",
         "NO_ERROR",
         {{512}, {256}},
         "shrunk: 1024 -> 8 blocks"},
    };
}

// The Ascend950 sheet, on atlas-350.
std::vector<CsvRow> Sheet950() {
    const auto json = [](int heads, const char* scale, int kvHeads, const char* more) {
        return R"({"headNum":)" + std::to_string(heads) + R"(,"qkScale":)" + scale + R"(,"kvHeadNum":)" +
               std::to_string(kvHeads) + more + "}";
    };
    const char* fields = R"(,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":0)";
    const HostValues fourBlocks{{256, 100, 1, 77}, {}};
    std::vector<CsvRow> rows = {
        {"950", 1, "Fp16", k350, json(32, "0.08838834764831843", 16, fields), kPlainTypes, kNd5,
         "4,32,32;4,256,16,32;4,256,16,32;4,32;4", "float16", "4,32,32", "NO_ERROR", fourBlocks, ""},
        {"950", 2, "Bf16", k350, json(32, "0.08838834764831843", 16, fields), "bf16;bf16;bf16;int32;int32",
         kNd5, "4,32,32;4,256,16,32;4,256,16,32;4,32;4", "bf16", "4,32,32", "NO_ERROR", fourBlocks, ""},
        {"950",
         3,
         "MLA",
         k350,
         json(32, "0.08838834764831843", 16, fields),
         kPlainTypes,
         kNd5,
         "4,32,128;4,64,16,128;4,64,16,96;4,32;4",
         "float16",
         "4,32,96",
         "C:NO_ERROR",
         {},
         ""},
        {"950",
         4,
         "Bf16",
         k350,
         json(32, "0.0883883461356163", 8, fields),
         "bf16;bf16;bf16;int32;int32",
         kNd5,
         "1,32,128;9,128,8,128;9,128,8,128;1,1;1",
         "bf16",
         "1,32,128",
         "NO_ERROR",
         {{100}, {}},
         ""},
        {"950",
         5,
         "MLA",
         k350,
         json(16, "0.08838834764831843", 1, fields),
         kPlainTypes,
         kNd5,
         "1,16,576;9,128,1,576;9,128,1,512;1,1;1",
         "float16",
         "1,16,576",
         "I:ERROR_INVALID_TENSOR_DIM",
         {},
         ""},
        {"950",
         6,
         "DTS2025071832215",
         k350,
         json(32, "0.0883883461356163", 8, R"(,"quantType":0)"),
         "bf16;bf16;bf16;int32;int32",
         kNd5,
         "16,32,128;32,128,8,128;32,128,8,128;16,2;16",
         "bf16",
         "16,32,128",
         "NO_ERROR",
         {{128, 1, 50, 99, 3, 17, 100, 64, 65, 2, 33, 80, 91, 128, 10, 5}, {}},
         "shrunk: batch 128 -> 16, 10240 -> 32 blocks"},
        {"950",
         7,
         "DTS2025071816303",
         k350,
         json(16, "0.1", 2, ""),
         kPlainTypes,
         kNd5,
         "4,16,32;1,256,2,32;1,256,2,32;4,32;4",
         "float16",
         "4,16,32",
         "S:ERROR_INVALID_TENSOR_DIM",
         {{100, 200, 300, 400}, {}},
         ""},
        {"950",
         8,
         "DTS2025071816303",
         k350,
         json(16, "0.1", 4, ""),
         "bf16;bf16;bf16;int32;int32",
         kNd5,
         "4,16,32;2,256,4,32;2,256,4,32;4,32;4",
         "bf16",
         "4,16,32",
         "S:ERROR_INVALID_TENSOR_DIM",
         {{300, 300, 10, 10}, {}},
         ""},
        {"950",
         14,
         "DTS2025071832215",
         k350,
         json(32, "0.0883883461356163", 8, R"(,"quantType":1)"),
         "bf16;bf16;bf16;int32;int32",
         kNd5,
         "128,32,128;10240,128,8,128;10240,128,8,128;128,2;128",
         "bf16",
         "128,32,128",
         "C:ERROR_INVALID_PARAM",
         {},
         ""},
    };
    for (int number = 9; number <= 13; ++number) {
        const int kvHeads = number == 11 ? 2 : (number == 12 ? 4 : 8);
        const char* scale = number <= 10 ? "0.1" : "0.2";
        rows.push_back({"950", number, "DTS2025071816303", k350, json(16, scale, kvHeads, ""), kPlainTypes,
                        kNd5,
                        "4,16,32;4,256," + std::to_string(kvHeads) + ",32;4,256," + std::to_string(kvHeads) +
                            ",32;4,32;4",
                        "float16", "4,16,32", "NO_ERROR", fourBlocks, ""});
    }
    return rows;
}

std::vector<CsvRow> AllRows() {
    std::vector<CsvRow> rows;
    for (auto* part : {&Sheet910BNegative, &Sheet910BNz, &Sheet910BParam, &Sheet910BMlaShapes,
                       &Sheet910BPositive, &Sheet910BInference, &Sheet950}) {
        std::vector<CsvRow> more = part();
        rows.insert(rows.end(), more.begin(), more.end());
    }
    return rows;
}

INSTANTIATE_TEST_SUITE_P(Sheet, PaCsvTest, testing::ValuesIn(AllRows()), RowName);

}  // namespace
}  // namespace atbx::test
