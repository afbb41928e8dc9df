// Rows of ATB's PagedAttention sheet on params, dtypes, ranks and cache shapes.
#include "pa_csv_rows.h"

namespace atbx::test {
namespace {

constexpr Platform kA2 = Platform::kAtlasA2;
constexpr Platform kInference = Platform::kAtlasInference;
constexpr Platform kTraining = Platform::kAtlasTraining;

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

}  // namespace

std::vector<CsvRow> PaCsvBasicRows() {
    std::vector<CsvRow> rows;
    for (auto* part : {&Sheet910BNegative, &Sheet910BNz, &Sheet910BParam, &Sheet910BMlaShapes}) {
        std::vector<CsvRow> more = part();
        rows.insert(rows.end(), more.begin(), more.end());
    }
    return rows;
}

}  // namespace atbx::test
