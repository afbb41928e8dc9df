// ATB's SelfAttention test sheet (tests/apitest/opstest/csv/self_attention.csv), rows transcribed in
// tests/data/sa_csv_*_rows.psv. Every negative row is rejected with ATB's status category (C:
// CreateOperation, the param stage; I: InferShape, tensor count to shape; S: Setup, the later stages) and
// code, and the rule it aims at is among the violations; where atbx's status differs, the row says why. Every
// positive row's descriptors pass InferShape's rules (or the row says why not), and a shrunk call that keeps
// the row's point passes every rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/param_json.h"
#include "ops/call_validation.h"
#include "ops/self_attention/sa_spec.h"
#include "support/sa_calls.h"
#include "support/validate.h"

namespace atbx::test {
namespace {

using Param = infer::SelfAttentionParam;
using rules::Stage;

struct CsvRow {
    std::string number;
    Platform platform = Platform::kAtlasA2;
    std::string param, dtypes, formats, shapes, atbStatus, rule, atbxStatus, hostSeqLen, note;
};

void PrintTo(const CsvRow& row, std::ostream* out) {
    *out << "row " << row.number << " on " << PlatformName(row.platform);
}

std::vector<std::string> Split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, separator))
        parts.push_back(part);
    if (!text.empty() && text.back() == separator) parts.emplace_back();
    return parts;
}

// One row per platform it names. Negative files carry the host seqLen column, positive ones do not.
std::vector<CsvRow> ReadRows(const std::string& name, bool negative) {
    std::ifstream file(std::string(ATBX_TEST_DATA_DIR) + "/" + name);
    EXPECT_TRUE(file.good()) << "cannot read " << name;
    std::vector<CsvRow> rows;
    std::string line;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> f = Split(line, '|');
        const size_t want = negative ? 11 : 10;
        if (f.size() != want) {
            ADD_FAILURE() << name << ": " << f.size() << " fields, want " << want << ": " << line;
            continue;
        }
        for (const std::string& platform : Split(f[1], ',')) {
            CsvRow row{f[0], *ParsePlatform(platform), f[2],    f[3], f[4], f[5], f[6], f[7],
                       f[8], negative ? f[9] : "",     f.back()};
            rows.push_back(row);
        }
    }
    return rows;
}

aclDataType DtypeOf(const std::string& name) {
    static const std::pair<const char*, aclDataType> kNames[] = {
        {"float16", ACL_FLOAT16}, {"bf16", ACL_BF16}, {"float", ACL_FLOAT}, {"int32", ACL_INT32},
        {"uint32", ACL_UINT32},   {"int8", ACL_INT8}, {"uint8", ACL_UINT8}, {"bool", ACL_BOOL}};
    for (const auto& [text, dtype] : kNames) {
        if (name == text) return dtype;
    }
    ADD_FAILURE() << "unknown dtype " << name;
    return ACL_DT_UNDEFINED;
}

aclFormat FormatOf(const std::string& name) {
    if (name == "nd") return ACL_FORMAT_ND;
    if (name == "fractal_nz") return ACL_FORMAT_FRACTAL_NZ;
    if (name == "fractal_z") return static_cast<aclFormat>(4);  // CANN's ACL_FORMAT_FRACTAL_Z
    ADD_FAILURE() << "unknown format " << name;
    return ACL_FORMAT_UNDEFINED;
}

SVector<TensorDesc> Descs(const CsvRow& row) {
    const auto dtypes = Split(row.dtypes, ';');
    const auto formats = Split(row.formats, ';');
    const auto shapes = Split(row.shapes, ';');
    SVector<TensorDesc> descs;
    for (size_t i = 0; i < dtypes.size() && i < shapes.size(); ++i) {
        TensorDesc desc;
        desc.dtype = DtypeOf(dtypes[i]);
        desc.format = FormatOf(formats[i]);
        for (const std::string& d : Split(shapes[i], ','))
            desc.shape.dims[desc.shape.dimNum++] = std::stoll(d);
        descs.push_back(desc);
    }
    return descs;
}

Param ParamOf(const CsvRow& row) {
    return std::get<Param>(io::ParseParam("SelfAttention", nlohmann::json::parse(row.param)));
}

char Category(Stage stage) {
    if (stage == Stage::kParam) return 'C';
    return stage <= Stage::kShape ? 'I' : 'S';
}

// Validates the row's descriptors up to the stage its expected category names (C: param, I: shape).
std::vector<rules::Violation> ValidateDescs(const CsvRow& row, char category) {
    const Param param = ParamOf(row);  // the validation keeps a pointer to it
    ops::CallValidation<ops::sa::SelfAttentionSpec> validation(param, row.platform);
    validation.SetDescs(Descs(row));
    return validation.Run(Stage::kParam, category == 'C' ? Stage::kParam : Stage::kShape);
}

// A Setup row: zero tensors of the row's descriptors, the host seqLen values, and the outputs they imply.
std::vector<rules::Violation> ValidateCall(const CsvRow& row) {
    TestCall call;
    call.param = ParamOf(row);
    call.platform = row.platform;
    NameInputs(call);
    for (const TensorDesc& desc : Descs(row))
        call.inputs.push_back(ZeroTensor(desc));
    std::vector<int32_t> seqLen;
    for (const std::string& v : Split(row.hostSeqLen, ','))
        seqLen.push_back(std::stoi(v));
    std::copy(seqLen.begin(), seqLen.end(), Elements<int32_t>(call.In("seqLen")).begin());
    AttachOutputs(call);
    return Violations(call);
}

std::vector<std::string> Ids(const std::vector<rules::Violation>& violations) {
    std::vector<std::string> ids;
    for (const rules::Violation& v : violations)
        ids.emplace_back(v.rule->id);
    return ids;
}

std::string Describe(const std::vector<rules::Violation>& violations) {
    std::string text;
    for (const rules::Violation& v : violations)
        text += std::string(v.rule->id) + ": " + v.message + "\n";
    return text.empty() ? "(no violation)" : text;
}

// The first violation carries the expected "C:ERROR_..." status and the row's rule is among them.
void ExpectStatus(const std::vector<rules::Violation>& violations, const std::string& status,
                  const std::string& rule) {
    ASSERT_FALSE(violations.empty()) << "expected " << status;
    const rules::RuleInfo& first = *violations.front().rule;
    EXPECT_EQ(std::string(1, Category(first.stage)) + ":" + ErrorTypeName(first.code), status)
        << Describe(violations);
    const std::vector<std::string> ids = Ids(violations);
    EXPECT_NE(std::find(ids.begin(), ids.end(), rule), ids.end()) << rule << " not violated:\n"
                                                                  << Describe(violations);
}

std::string RowName(const testing::TestParamInfo<CsvRow>& info) {
    std::string name = "row_" + info.param.number + "_" + PlatformName(info.param.platform);
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

class SaCsvNegativeRow : public testing::TestWithParam<CsvRow> {};

TEST_P(SaCsvNegativeRow, IsRejectedWithAtbsStatus) {
    const CsvRow& row = GetParam();
    const std::string status = row.atbxStatus.empty() ? row.atbStatus : row.atbxStatus;
    if (!row.atbxStatus.empty()) {
        EXPECT_FALSE(row.note.empty()) << "a differing status needs a reason";
    }
    const char category = status[0];
    const auto violations = category == 'S' ? ValidateCall(row) : ValidateDescs(row, category);
    ExpectStatus(violations, status, row.rule);
}

INSTANTIATE_TEST_SUITE_P(SelfAttentionCsv, SaCsvNegativeRow,
                         testing::ValuesIn(ReadRows("sa_csv_negative_rows.psv", true)), RowName);

class SaCsvPositiveRow : public testing::TestWithParam<CsvRow> {};

TEST_P(SaCsvPositiveRow, DescriptorsPassInferShape) {
    const CsvRow& row = GetParam();
    const char category = row.atbStatus == "C:NO_ERROR" ? 'C' : 'I';
    const auto violations = ValidateDescs(row, category);
    if (row.rule.empty()) {
        EXPECT_TRUE(violations.empty()) << Describe(violations);
        return;
    }
    EXPECT_FALSE(row.note.empty()) << "a rejected positive row needs a reason";
    ExpectStatus(violations, row.atbxStatus, row.rule);
}

INSTANTIATE_TEST_SUITE_P(SelfAttentionCsv, SaCsvPositiveRow,
                         testing::ValuesIn(ReadRows("sa_csv_positive_rows.psv", false)), RowName);

// The positive rows' points in small calls with data and host values.
struct ShrunkRow {
    std::string rows;
    Platform platform;
    std::function<TestCall()> make;
};

void PrintTo(const ShrunkRow& row, std::ostream* out) {
    *out << row.rows << " on " << PlatformName(row.platform);
}

SaShape Shape(std::vector<int32_t> seqLen, int32_t headSize, int32_t headSizeV = 0) {
    SaShape shape;
    shape.seqLen = std::move(seqLen);
    shape.headSize = headSize;
    shape.headSizeV = headSizeV;
    return shape;
}

Param Heads(Param p, int32_t heads, int32_t kvHeads) {
    p.headNum = heads;
    p.kvHeadNum = kvHeads;
    return p;
}

Param PaMask(Param::MaskType mask) {
    Param p = PaEncoderParam();
    p.maskType = mask;
    return p;
}

std::vector<ShrunkRow> ShrunkRows() {
    const Platform a2 = Platform::kAtlasA2;
    const Platform inference = Platform::kAtlasInference;
    const Platform a350 = Platform::kAtlas350;
    std::vector<ShrunkRow> rows;
    const auto add = [&](std::string name, Platform platform, Param param, SaShape shape) {
        rows.push_back({std::move(name), platform, [=] { return MakeSaCall(param, shape, platform); }});
    };
    // 1, 3: KV cache in the op, 4-D q/k/v, 3 layers, one [S, S] mask, qScale 0.2 (3: clamp).
    Param fa = Heads(FlashParam(Param::UNDEFINED, Param::MASK_TYPE_NORM), 4, 0);
    fa.qScale = 0.2f;
    fa.qkScale = 1.0f;
    SaShape fa4d = Shape({3, 3, 3}, 32);
    fa4d.kvSeqLen = {3, 5, 11};
    fa4d.rank = 4;
    fa4d.layers = 3;
    fa4d.layerId = 2;
    fa4d.maskSlack = 6;
    add("1", a2, fa, fa4d);
    Param clamp = fa;
    clamp.clampType = Param::CLAMP_TYPE_MIN_MAX;
    clamp.clampMin = 0.3333f;
    clamp.clampMax = 0.5555f;
    add("3", a2, clamp, fa4d);
    add("2", a2, Heads(PaEncoderParam(), 4, 4), Shape({25, 25, 25, 25}, 32));
    // 35: bypass, one query per sequence, a [B, 1, S] mask over a larger cache.
    SaShape bypass = DecoderShape();
    bypass.mask = SaMaskForm::kPerBatch;
    bypass.cacheSlack = 40;
    add("35", a2, BypassParam(Param::UNDEFINED, Param::MASK_TYPE_NORM), bypass);
    // 226 ... 293: atlas-350 PA_ENCODER, with or without an int8/uint8 NORM mask, D 192 / Dv 128.
    add("227, 228, 290", a350, PaEncoderParam(), Shape({16}, 16));
    add("229, 232, 289, 291", a350, PaMask(Param::MASK_TYPE_NORM), Shape({5, 11}, 16));
    add("230, 292", a350, PaEncoderParam(), Shape({16}, 192, 128));
    add("226, 233", a350, PaMask(Param::MASK_TYPE_NORM), Shape({9, 7}, 192, 128));
    SaShape bf16 = Shape({4, 4, 4, 4}, 16);
    bf16.dtype = ACL_BF16;
    add("231, 293", a350, PaEncoderParam(), bf16);
    rows.push_back(
        {"234", a350, [=] {
             TestCall call = MakeSaCall(PaMask(Param::MASK_TYPE_NORM), Shape({4, 4, 4, 4}, 192, 128), a350);
             call.In("attentionMask").desc.dtype = ACL_UINT8;
             return call;
         }});
    SaShape compress2048 = Shape({40, 33}, 64);
    add("301", a350, PaMask(Param::MASK_TYPE_NORM_COMPRESS), compress2048);
    // 294 ... 300: alibi masks [H, S, S] and [B, H, S, S], GQA, the "MLA kernel" (D 192, Dv 128).
    SaShape alibi2d = Shape({5, 9, 2, 7}, 16);
    alibi2d.rank = 2;
    alibi2d.mask = SaMaskForm::kPerHead;
    add("294", a2, Heads(PaMask(Param::MASK_TYPE_ALIBI), 8, 8), alibi2d);
    alibi2d.mask = SaMaskForm::kPerBatchHead;
    add("295", a2, Heads(PaMask(Param::MASK_TYPE_ALIBI), 8, 8), alibi2d);
    SaShape gqa = Shape({13, 10, 2, 16}, 64);
    gqa.mask = SaMaskForm::kPerBatchHead;
    for (Platform platform : {a2, a350})
        add("296", platform, Heads(PaMask(Param::MASK_TYPE_ALIBI), 8, 2), gqa);
    SaShape mlaKernel = Shape({13, 10, 2, 16}, 192, 128);
    mlaKernel.mask = SaMaskForm::kPerBatchHead;
    add("297, 298", a2, Heads(PaMask(Param::MASK_TYPE_ALIBI), 8, 2), mlaKernel);
    SaShape alibiBf16 = Shape({16}, 128);
    alibiBf16.dtype = ACL_BF16;
    alibiBf16.mask = SaMaskForm::kPerHead;
    SaShape d192 = Shape({13, 10, 2, 16}, 192);
    d192.mask = SaMaskForm::kPerBatchHead;
    for (Platform platform : {a2, a350}) {
        add("299", platform, Heads(PaMask(Param::MASK_TYPE_ALIBI), 8, 8), alibiBf16);
        add("300", platform, Heads(PaMask(Param::MASK_TYPE_ALIBI), 8, 2), d192);
    }
    // 302 ... 306: atlas-inference, GQA 32/8 (here 8/2), ND alibi mask, NZ caches and masks.
    add("302", inference, Heads(PaEncoderParam(), 8, 2), Shape({64}, 128));
    SaShape ndAlibi = Shape({32, 32, 32, 32}, 128);
    ndAlibi.mask = SaMaskForm::kPerBatchHead;
    ndAlibi.nzMask = false;
    add("303", inference, Heads(PaMask(Param::MASK_TYPE_ALIBI), 8, 2), ndAlibi);
    add("304", inference, Heads(FlashParam(Param::ENCODER, Param::MASK_TYPE_NORM), 8, 2), Shape({128}, 128));
    Param swa = Heads(PaMask(Param::MASK_TYPE_SLIDING_WINDOW_NORM), 8, 2);
    swa.windowSize = 40;
    add("305", inference, swa, Shape({128}, 128));
    Param faSwa = Heads(FlashParam(Param::ENCODER, Param::MASK_TYPE_SLIDING_WINDOW_NORM), 8, 2);
    faSwa.windowSize = 40;
    add("306", inference, faSwa, Shape({128}, 128));
    return rows;
}

class SaCsvShrunkRow : public testing::TestWithParam<ShrunkRow> {};

TEST_P(SaCsvShrunkRow, PassesEveryRule) {
    TestCall call = GetParam().make();
    EXPECT_TRUE(ViolatedRules(call).empty()) << DescribeViolations(call);
}

std::string ShrunkName(const testing::TestParamInfo<ShrunkRow>& info) {
    std::string name = "rows_" + info.param.rows + "_" + PlatformName(info.param.platform);
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(SelfAttentionCsv, SaCsvShrunkRow, testing::ValuesIn(ShrunkRows()), ShrunkName);

}  // namespace
}  // namespace atbx::test
