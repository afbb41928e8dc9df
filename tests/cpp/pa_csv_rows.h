// The rows of ATB's PagedAttention test sheet (tests/apitest/opstest/csv/paged_attention.csv,
// docs/spec/paged_attention.md 5.3), as the sheet writes them, for pa_csv_cases_test.cpp.
#ifndef ATBX_TESTS_PA_CSV_ROWS_H
#define ATBX_TESTS_PA_CSV_ROWS_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "atbx/platform.h"

namespace atbx::test {

struct HostValues {
    std::vector<int32_t> contextLens;
    std::vector<int32_t> qSeqLen;
};

struct CsvRow {
    std::string sheet;  // "910B", "950"
    int number = 0;
    std::string name;
    Platform platform = Platform::kAtlasA2;
    std::string param;  // the row's OpParam JSON
    std::string dtypes, formats, shapes;
    std::string outDtype, outShape;
    std::string expected;  // "NO_ERROR", "C:ERROR_INVALID_PARAM", "I:...", "S:..."
    HostValues host;
    std::string note;  // shrunk shapes, or why atbx's outcome differs from the sheet's
};

// "910B row 12 WrongDtype6" in test output.
void PrintTo(const CsvRow& row, std::ostream* out);

// Parameters, dtypes and layouts the sheet's rows share.
// Plain rows: q [4, 32, 32], caches [4, 256, 32, 32], blockTables [4, 32].
inline const char* const kPlain =
    R"({"headNum":32,"qkScale":0.5,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":0})";
inline const char* const kPlainTypes = "float16;float16;float16;int32;int32";
inline const char* const kNd5 = "nd;nd;nd;nd;nd";
inline const char* const kNz5 = "nd;fractal_nz;fractal_nz;nd;nd";
inline const char* const kGqa =
    R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":16,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":0})";
inline const char* const kMha32 =
    R"({"headNum":32,"qkScale":0.08838834764831843,"kvHeadNum":32,"calcType":0,"compressType":0,"maskType":0,"quantType":0,"scaleType":0})";
inline const char* const kShrunkNz = "shrunk: 64 -> 4 blocks";

// pa_csv_rows_basic.cpp: params, dtypes, ranks, cache shapes (910B, 310P and 910A columns), MLA shapes.
std::vector<CsvRow> PaCsvBasicRows();
// pa_csv_rows_features.cpp: masks, logN, batchRunStatus, SPEC, quantization, compression, MLA split caches,
// BNSD, MASK_FREE, and the Ascend950 sheet.
std::vector<CsvRow> PaCsvFeatureRows();

}  // namespace atbx::test

#endif  // ATBX_TESTS_PA_CSV_ROWS_H
