// ATB's own PagedAttention test sheet (tests/apitest/opstest/csv/paged_attention.csv,
// docs/spec/paged_attention.md 5.3) as a table: each row's param, input dtypes, formats and shapes as the
// sheet writes them, and the outcome ATB expects: "C:" CreateOperation, "I:" InferShape, "S:" Setup fail with
// that status; NO_ERROR rows are valid calls. Rows whose shapes are too large for a fast test are shrunk
// (fewer blocks, fewer batches) where the row's point survives; their note says so. Where atbx deliberately
// differs from the sheet (a rule of the seed or docs/spec/DECISIONS.md, or a check ATB makes only in its
// kernel), the expected outcome is atbx's and the note says why. Host values ("customize" in the sheet) are
// chosen here to fit the row's shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atbx/operation.h"
#include "io/param_json.h"
#include "pa_csv_rows.h"
#include "support/pa_case_helpers.h"
#include "support/validate.h"

namespace atbx::test {

void PrintTo(const CsvRow& row, std::ostream* out) {
    *out << row.sheet << " row " << row.number << " " << row.name;
}

namespace {

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

std::vector<CsvRow> AllRows() {
    std::vector<CsvRow> rows = PaCsvBasicRows();
    std::vector<CsvRow> more = PaCsvFeatureRows();
    rows.insert(rows.end(), more.begin(), more.end());
    return rows;
}

INSTANTIATE_TEST_SUITE_P(Sheet, PaCsvTest, testing::ValuesIn(AllRows()), RowName);

}  // namespace
}  // namespace atbx::test
