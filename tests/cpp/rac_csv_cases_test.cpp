// ATB's own test sheet for ReshapeAndCache (tests/apitest/opstest/csv/reshape_and_cache.csv), every row that
// names a profile atbx has, as a table: the call goes through the public API and must fail at the stage the
// sheet says (C: CreateOperation, I: InferShape, S: Setup) with its status, or pass. Passing rows are also
// executed with fewer tokens and blocks (the sheet's caches reach gigabytes). Rows for Atlas 200I/500 A2
// (Ascend310B) are out of scope: atbx has no profile for that product.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <random>

#include "atbx/operation.h"
#include "io/param_json.h"
#include "support/run_call.h"
#include "support/validate.h"
#include "verify/random_fill.h"

namespace atbx::test {
namespace {

using Param = infer::ReshapeAndCacheParam;

// A row of the sheet, as written there: param JSON; input dtypes, formats, shapes; output dtypes, formats,
// shapes; the expected status; the products.
struct CsvRow {
    const char* label;
    const char* param;
    const char* inDtypes;
    const char* inFormats;
    const char* inShapes;
    const char* outDtypes;
    const char* outFormats;
    const char* outShapes;
    const char* expected;
    const char* socs;
};

const CsvRow kRows[] = {
    {"row 1", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "2,32,128;2,32,128;512,128,32,128;512,128,32,128;2", "float16;float16", "nd;nd",
     "512,128,32,128;512,128,32,128", "NO_ERROR", "Ascend910B"},
    {"row 2", "{\"compressType\":0}", "float16;float16;float16;float16;float16", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_INI_MATCH", "Ascend910B"},
    {"row 3", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "3,32,32;4,32,32;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 4", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;3,32,32;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 5", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,64;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 6", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,64;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 7", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,32;16,128,32,64;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 8", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,32;17,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 9", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,32;16,129,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 10", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "2,32,64;2,32,128;512,128,32,64;512,128,32,128;2", "float16;float16", "nd;nd",
     "512,128,32,64;512,128,32,128", "NO_ERROR", "Ascend910B"},
    {"row 11", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "2,32,128;2,32,128;64,16,512,16;64,16,256,16;2", "float16;float16",
     "fractal_nz;fractal_nz", "64,16,32,128;64,16,32,128", "I:ERROR_INVALID_TENSOR_DIM",
     "Ascend310P,Ascend910A"},
    {"row 12", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "2,32,128;2,32,128;64,16,256,17;64,16,256,16;2", "float16;float16",
     "fractal_nz;fractal_nz", "64,16,32,128;64,16,32,128", "I:ERROR_INVALID_TENSOR_DIM",
     "Ascend310P,Ascend910A"},
    {"row 13", "{\"compressType\":2}", "float16;float16;float16;float16;int32;int32;int32;int64",
     "nd;nd;nd;nd;nd;nd;nd;nd", "4,32,32;4,32,32;16,128,32,32;16,128,32,32;4;4;4;4", "float16;float16",
     "nd;nd", "64,16,32,128;64,16,32,128", "I:ERROR_INVALID_TENSOR_INI_MATCH", "Ascend910B"},
    {"row 14", "{\"compressType\":2}", "float16;float16;float16;float16;int32;int32;int32;int32",
     "nd;nd;nd;nd;nd;nd;nd;nd", "4,32,32;4,32,32;16,128,1,33;16,128,1,32;4;4;4;4", "float16;float16", "nd;nd",
     "64,16,32,128;64,16,32,128", "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 15", "{\"compressType\":5}", "float16;float16;float16;float16;int32;int32;int32;int32",
     "nd;nd;nd;nd;nd;nd;nd;nd", "4,32,32;4,32,32;16,128,32,32;16,128,32,32;4;4;4;4", "float16;float16",
     "nd;nd", "64,16,32,128;64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend910B"},
    {"row 16", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "2,32,128;512,128,32,128;2",
     "float16", "nd", "512,128,32,128", "NO_ERROR", "Ascend910B"},
    {"row 17", "{\"kvCacheCfg\":1}", "int8;int8;int32", "nd;nd;nd", "2,32,128;512,128,32,128;2", "int8", "nd",
     "512,128,32,128", "NO_ERROR", "Ascend910B"},
    {"row 18", "{\"kvCacheCfg\":1}", "bf16;bf16;int32", "nd;nd;nd", "2,32,128;512,128,32,128;2", "bf16", "nd",
     "512,128,32,128", "NO_ERROR", "Ascend910B"},
    {"row 19", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "64,32,128;16,2,32,128;64",
     "float16", "nd", "16,2,32,128", "NO_ERROR", "Ascend910B"},
    {"row 20", "{\"kvCacheCfg\":1}", "float16;float16;float16", "nd;nd;nd", "4,32,128;64,16,32,128;4",
     "float16", "nd", "64,16,32,128", "I:ERROR_INVALID_TENSOR_INI_MATCH", "Ascend910B"},
    {"row 21", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "4,32,128;16,16,32,128;4",
     "float16", "nd", "64,16,32,128", "S:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 22", "{\"kvCacheCfg\":1,\"compressType\":1}", "float16;float16;int32", "nd;nd;nd",
     "4,32,128;64,128,32,128;4", "float16", "nd", "64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend910B"},
    {"row 23", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "4,32,128;64,16,64,128;4",
     "float16", "nd", "64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend310P"},
    {"row 24", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "4,32,128;64,16,64,128;5",
     "float16", "nd", "64,16,32,128", "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 25", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "4,32,128;64,16,32,64;4", "float16",
     "nd", "64,16,32,128", "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 26", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "4,32,64;64,16,32,128;4", "float16",
     "nd", "64,16,32,128", "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 27", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "4,32,128;64,16,16,128;4",
     "float16", "nd", "64,16,16,128", "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 28", "{\"kvCacheCfg\":3}", "float16;float16;int32", "nd;nd;nd", "4,32,64;64,16,32,128;4", "float16",
     "nd", "64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend910B"},
    {"row 29", "{\"kvCacheCfg\":-1}", "float16;float16;int32", "nd;nd;nd", "4,32,64;64,16,32,128;4",
     "float16", "nd", "64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend910B"},
    {"row 30", "{}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "128,2,32;128,16,32;64,16,2,32;64,16,16,32;128", "float16;float16", "nd;nd", "64,16,2,32;64,16,16,32",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 31", "{}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "2,16,64;2,2,64;64,16,16,64;64,16,2,64;2", "float16;float16", "nd;nd", "64,16,16,64;64,16,2,64",
     "I:ERROR_INVALID_TENSOR_INI_MATCH", "Ascend310P"},
    {"row 32", "{\"rsv\":[1]}", "", "", "", "", "", "", "C:ERROR_INVALID_PARAM",
     "Ascend910B,Ascend310P,Ascend310B"},
    {"row 33", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "3,4,128;3,4,128;3,32,128,16;3,32,128,16;3", "float16;float16",
     "fractal_nz;fractal_nz", "3,32,128,16;3,32,128,16", "NO_ERROR", "Ascend310B"},
    {"row 34", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "3,4,128;3,4,128;3,32,128,16;3,32,128,16;3", "float16;float16", "nd;nd", "3,32,128,16;3,32,128,16",
     "I:ERROR_INVALID_TENSOR_INI_MATCH", "Ascend310B"},
    {"row 35", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "3,4,128;3,4,128;3,32,128,32;3,32,128,32;3", "float16;float16",
     "fractal_nz;fractal_nz", "3,32,128,16;3,32,128,16", "I:ERROR_INVALID_TENSOR_DIM", "Ascend310B"},
    {"row 36", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "3,4,128;3,4,64;3,32,128,16;3,32,128,16;3", "float16;float16",
     "fractal_nz;fractal_nz", "3,32,128,16;3,32,128,16", "I:ERROR_INVALID_TENSOR_DIM", "Ascend310B"},
    {"row 37", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "4,5,128;4,5,128;4,40,128,16;4,40,128,16;4", "float16;float16",
     "fractal_nz;fractal_nz", "4,40,128,16;4,40,128,16", "NO_ERROR", "Ascend310B"},
    {"row 38", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "4,6,128;4,6,128;4,48,128,16;4,48,128,16;4", "float16;float16",
     "fractal_nz;fractal_nz", "4,48,128,16;4,48,128,16", "NO_ERROR", "Ascend310B"},
    {"row 39", "{}", "float16;float16;float16;float16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "8192,1,128;8192,1,128;96,8,128,16;96,8,128,16;8192", "float16;float16", "fractal_nz;fractal_nz",
     "96,8,128,16;96,8,128,16", "NO_ERROR", "Ascend310P"},
    {"row 40", "{\"kvCacheCfg\":2}", "int8;float16;int8;float16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "4,6,128;4,6,128;4,48,128,16;4,48,128,16;4", "int8;float16", "fractal_nz;fractal_nz",
     "4,48,128,16;4,48,128,16", "I:ERROR_INVALID_TENSOR_DIM", "Ascend910B"},
    {"row 41", "{\"kvCacheCfg\":2}", "int8;float16;int8;float16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "4,6,128;4,6,128;4,24,128,32;4,48,128,16;4", "int8;float16", "fractal_nz;fractal_nz",
     "4,24,128,32;4,48,128,16", "NO_ERROR", "Ascend910B"},
    {"row 42", "{\"kvCacheCfg\":2}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "4,6,128;4,6,128;4,48,128,16;4,48,128,16;4", "float16;float16",
     "fractal_nz;fractal_nz", "4,48,128,16;4,48,128,16", "NO_ERROR", "Ascend910B"},
    {"row 43", "{\"kvCacheCfg\":2}", "bf16;float16;bf16;float16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "4,6,128;4,6,128;4,48,128,16;4,48,128,16;4", "bf16;float16", "fractal_nz;fractal_nz",
     "4,48,128,16;4,48,128,16", "NO_ERROR", "Ascend910B"},
    {"row 44", "{\"kvCacheCfg\":2}", "bf16;bf16;bf16;bf16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "4,6,128;4,6,128;4,48,128,16;4,48,128,16;4", "bf16;bf16", "fractal_nz;fractal_nz",
     "4,48,128,16;4,48,128,16", "NO_ERROR", "Ascend910B"},
    {"row 45", "{\"kvCacheCfg\":2}", "bf16;bf16;bf16;bf16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "4,6,64;4,6,128;4,24,64,16;4,48,64,16;4", "bf16;bf16", "fractal_nz;fractal_nz", "4,24,64,16;4,48,64,16",
     "NO_ERROR", "Ascend910B"},
    {"row 46", "{\"kvCacheCfg\":2}", "int8;bf16;int8;bf16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "4,6,64;4,6,128;4,12,64,32;4,48,64,16;4", "int8;bf16", "fractal_nz;fractal_nz", "4,12,64,32;4,48,64,16",
     "NO_ERROR", "Ascend910B"},
    {"row 47", "{\"kvCacheCfg\":2}", "float16;float16;float16;float16;int32",
     "nd;nd;fractal_nz;fractal_nz;nd", "8192,10,128;8192,10,128;128,80,128,16;128,80,128,16;8192",
     "float16;float16", "fractal_nz;fractal_nz", "128,80,128,16;128,80,128,16", "NO_ERROR", "Ascend910B"},
    {"row 49", "{\"kvCacheCfg\":2}", "int8;float16;int8;float16;int32", "nd;nd;fractal_nz;fractal_nz;nd",
     "4096,1,512;4096,1,64;34,16,128,32;34,4,128,16;4096", "int8;float16", "fractal_nz;fractal_nz",
     "34,16,128,32;34,4,128,16", "NO_ERROR", "Ascend910B"},
    {"row 50", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "3072,1,512;3072,1,64;801,128,1,512;801,128,1,64;3072", "float16;float16", "nd;nd",
     "801,128,1,512;801,128,1,64", "NO_ERROR", "Ascend910B"},
    {"row 51", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "2,32,128;2,32,128;512,128,32,128;512,128,32,128;2", "float16;float16", "nd;nd",
     "512,128,32,128;512,128,32,128", "NO_ERROR", "Ascend950"},
    {"row 52", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "2,32,64;2,32,128;512,128,32,64;512,128,32,128;2", "float16;float16", "nd;nd",
     "512,128,32,64;512,128,32,128", "NO_ERROR", "Ascend950"},
    {"row 53", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "2,32,128;512,128,32,128;2",
     "float16", "nd", "512,128,32,128", "C:ERROR_INVALID_PARAM", "Ascend950"},
    {"row 54", "{\"kvCacheCfg\":1}", "int8;int8;int32", "nd;nd;nd", "2,32,128;512,128,32,128;2", "int8", "nd",
     "512,128,32,128", "C:ERROR_INVALID_PARAM", "Ascend950"},
    {"row 55", "{\"kvCacheCfg\":1}", "bf16;bf16;int32", "nd;nd;nd", "2,32,128;512,128,32,128;2", "bf16", "nd",
     "512,128,32,128", "C:ERROR_INVALID_PARAM", "Ascend950"},
    {"row 56", "{\"kvCacheCfg\":1}", "float16;float16;int32", "nd;nd;nd", "64,32,128;16,2,32,128;64",
     "float16", "nd", "16,2,32,128", "C:ERROR_INVALID_PARAM", "Ascend950"},
    {"row 57", "{\"compressType\":2}", "float16;float16;float16;float16;int32;int32;int32;int64",
     "nd;nd;nd;nd;nd;nd;nd;nd", "4,32,32;4,32,32;16,128,32,32;16,128,32,32;4;4;4;4", "float16;float16",
     "nd;nd", "64,16,32,128;64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend950"},
    {"row 58", "{\"compressType\":2}", "float16;float16;float16;float16;int32;int32;int32;int32",
     "nd;nd;nd;nd;nd;nd;nd;nd", "4,32,32;4,32,32;16,128,1,33;16,128,1,32;4;4;4;4", "float16;float16", "nd;nd",
     "64,16,32,128;64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend950"},
    {"row 59", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "1,8,96;1,8,96;256,96,8,96;256,96,8,96;1", "float16;float16", "nd;nd", "256,96,8,96;256,96,8,96",
     "NO_ERROR", "Ascend950"},
    {"row 60", "{\"compressType\":0}", "float16;float16;float16;float16;float16", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_INI_MATCH", "Ascend950"},
    {"row 61", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "3,32,32;4,32,32;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"row 62", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;3,32,32;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"row 63", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,64;16,128,32,32;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"row 64", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,64;16,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"row 65", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,32;16,128,32,64;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"row 66", "{\"compressType\":0}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "4,32,32;4,32,32;16,128,32,32;17,128,32,32;4", "float16;float16", "nd;nd", "64,16,32,128;64,16,32,128",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"row 67", "{\"compressType\":5}", "float16;float16;float16;float16;int32;int32;int32;int32",
     "nd;nd;nd;nd;nd;nd;nd;nd", "4,32,32;4,32,32;16,128,32,32;16,128,32,32;4;4;4;4", "float16;float16",
     "nd;nd", "64,16,32,128;64,16,32,128", "C:ERROR_INVALID_PARAM", "Ascend950"},
    {"row 68", "{}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "128,2,32;128,16,32;64,16,2,32;64,16,16,32;128", "float16;float16", "nd;nd", "64,16,2,32;64,16,16,32",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"row 69", "{}", "float16;float16;float16;float16;int32", "nd;nd;nd;nd;nd",
     "2,16,64;2,2,64;64,16,16,64;64,16,2,64;2", "float16;float16", "nd;nd", "64,16,16,64;64,16,2,64",
     "I:ERROR_INVALID_TENSOR_DIM", "Ascend950"},
    {"aclnnScatterPaKvCache row 1", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "13,1,512;13,1,64;55367,128,1,512;55367,128,1,64;13", "bf16;bf16", "nd;nd",
     "55367,128,1,512;55367,128,1,64", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 2", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,1,512;1,1,64;55367,128,1,512;55367,128,1,64;1", "bf16;bf16", "nd;nd",
     "55367,128,1,512;55367,128,1,64", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 3", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;nd;nd;nd", "13,1,512;13,1,64;57347,128,1,512;57347,128,1,64;13", "float16;float16", "nd;nd",
     "57347,128,1,512;57347,128,1,64", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 4", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "14,1,512;14,1,64;40710,128,1,512;40710,128,1,64;14", "bf16;bf16", "nd;nd",
     "40710,128,1,512;40710,128,1,64", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 5", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "236,2,128;236,2,128;6760,128,2,128;6760,128,2,128;236", "bf16;bf16", "nd;nd",
     "6760,128,2,128;6760,128,2,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 6", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,2,128;1,2,128;6760,128,2,128;6760,128,2,128;1", "bf16;bf16", "nd;nd", "6760,128,2,128;6760,128,2,128",
     "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 7", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "15,1,128;15,1,128;1827,128,1,128;1827,128,1,128;15", "bf16;bf16", "nd;nd",
     "1827,128,1,128;1827,128,1,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 8", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,1,128;1,1,128;1827,128,1,128;1827,128,1,128;1", "bf16;bf16", "nd;nd", "1827,128,1,128;1827,128,1,128",
     "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 9", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;nd;nd;nd", "21,8,128;21,8,128;2362,128,8,128;2362,128,8,128;21", "float16;float16", "nd;nd",
     "2362,128,8,128;2362,128,8,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 10", "{\"compressType\":0}", "float16;float16;float16;float16;int32",
     "nd;nd;nd;nd;nd", "1,8,128;1,8,128;2362,128,8,128;2362,128,8,128;1", "float16;float16", "nd;nd",
     "2362,128,8,128;2362,128,8,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 11", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "29,4,128;29,4,128;5512,128,4,128;5512,128,4,128;29", "bf16;bf16", "nd;nd",
     "5512,128,4,128;5512,128,4,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 12", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,4,128;1,4,128;5512,128,4,128;5512,128,4,128;1", "bf16;bf16", "nd;nd", "5512,128,4,128;5512,128,4,128",
     "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 13", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "19,1,128;19,1,128;11319,128,1,128;11319,128,1,128;19", "bf16;bf16", "nd;nd",
     "11319,128,1,128;11319,128,1,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 14", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,1,128;1,1,128;11319,128,1,128;11319,128,1,128;1", "bf16;bf16", "nd;nd",
     "11319,128,1,128;11319,128,1,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 15", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "19,1,128;19,1,128;15291,128,1,128;15291,128,1,128;19", "bf16;bf16", "nd;nd",
     "15291,128,1,128;15291,128,1,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 16", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,1,128;1,1,128;15291,128,1,128;15291,128,1,128;1", "bf16;bf16", "nd;nd",
     "15291,128,1,128;15291,128,1,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 17", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "182,8,128;182,8,128;3456,128,8,128;3456,128,8,128;182", "bf16;bf16", "nd;nd",
     "3456,128,8,128;3456,128,8,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 18", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,8,128;1,8,128;3456,128,8,128;3456,128,8,128;1", "bf16;bf16", "nd;nd", "3456,128,8,128;3456,128,8,128",
     "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 19", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "249,4,128;249,4,128;5212,128,4,128;5212,128,4,128;249", "bf16;bf16", "nd;nd",
     "5212,128,4,128;5212,128,4,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaKvCache row 20", "{\"compressType\":0}", "bf16;bf16;bf16;bf16;int32", "nd;nd;nd;nd;nd",
     "1,4,128;1,4,128;5212,128,4,128;5212,128,4,128;1", "bf16;bf16", "nd;nd", "5212,128,4,128;5212,128,4,128",
     "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaCache row 1", "{\"compressType\":0,\"kvCacheCfg\":1}", "bf16;bf16;int32", "nd;nd;nd",
     "1,1,128;40710,128,1,128;1", "bf16", "nd", "40710,128,1,128", "NO_ERROR", "Ascend950"},
    {"aclnnScatterPaCache row 2", "{\"compressType\":0,\"kvCacheCfg\":1}", "bf16;bf16;int32", "nd;nd;nd",
     "14,1,128;40710,128,1,128;14", "bf16", "nd", "40710,128,1,128", "NO_ERROR", "Ascend950"},

};

// Rows where atbx deliberately gives another outcome than the sheet (docs/decisions.md, ReshapeAndCache).
struct Deviation {
    const char* label;
    const char* expected;
};
const Deviation kDeviations[] = {
    // K_CACHE_V_BYPASS (key only) on Ascend950: ATB's code accepts it since its 950 SISO change, and the
    // sheet's newest rows (aclnnScatterPaCache rows 1 and 2, DeepSeek's cache) expect it to pass. These four
    // older rows expect the rejection that change removed; atbx accepts them.
    {"row 53", "NO_ERROR"},  // float16 key only, ND cache
    {"row 54", "NO_ERROR"},  // int8 key only, ND cache
    {"row 55", "NO_ERROR"},  // bf16 key only, ND cache
    {"row 56", "NO_ERROR"},  // float16 key only, 16 blocks of 2 slots
};

std::vector<std::string> Split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    if (text.empty()) return parts;
    size_t start = 0;
    for (size_t end; (end = text.find(separator, start)) != std::string_view::npos; start = end + 1)
        parts.emplace_back(text.substr(start, end - start));
    parts.emplace_back(text.substr(start));
    return parts;
}

aclDataType DtypeOf(const std::string& name) {
    if (name == "float16") return ACL_FLOAT16;
    if (name == "bf16") return ACL_BF16;
    if (name == "int8") return ACL_INT8;
    if (name == "int32") return ACL_INT32;
    if (name == "int64") return ACL_INT64;
    ADD_FAILURE() << "unknown dtype " << name;
    return ACL_DT_UNDEFINED;
}

aclFormat FormatOf(const std::string& name) {
    EXPECT_TRUE(name == "nd" || name == "fractal_nz") << name;
    return name == "fractal_nz" ? ACL_FORMAT_FRACTAL_NZ : ACL_FORMAT_ND;
}

std::vector<TensorDesc> DescsOf(const char* dtypes, const char* formats, const char* shapes) {
    const auto d = Split(dtypes, ';'), f = Split(formats, ';'), s = Split(shapes, ';');
    EXPECT_TRUE(d.size() == f.size() && d.size() == s.size());
    std::vector<TensorDesc> descs;
    for (size_t i = 0; i < d.size() && i < f.size() && i < s.size(); ++i) {
        TensorDesc desc;
        desc.dtype = DtypeOf(d[i]);
        desc.format = FormatOf(f[i]);
        for (const std::string& dim : Split(s[i], ','))
            desc.shape.dims[desc.shape.dimNum++] = std::stoll(dim);
        descs.push_back(desc);
    }
    return descs;
}

std::optional<Platform> ProfileOf(const std::string& soc) {
    if (soc == "Ascend910B") return Platform::kAtlasA2;
    if (soc == "Ascend310P") return Platform::kAtlasInference;
    if (soc == "Ascend910A") return Platform::kAtlasTraining;
    if (soc == "Ascend950") return Platform::kAtlas350;
    EXPECT_EQ(soc, "Ascend310B") << "unknown product";
    return std::nullopt;
}

// "I:ERROR_INVALID_TENSOR_DIM" -> stage 'I' and the code; "NO_ERROR" -> stage 0.
struct Outcome {
    char stage = 0;
    std::string code = "NO_ERROR";
};

Outcome OutcomeOf(const CsvRow& row) {
    std::string expected = row.expected;
    for (const Deviation& d : kDeviations) {
        if (std::string_view(d.label) == row.label) expected = d.expected;
    }
    if (expected == "NO_ERROR") return {};
    return {expected[0], expected.substr(2)};
}

struct Instance {
    const CsvRow* row;
    Platform platform;
    friend void PrintTo(const Instance& i, std::ostream* out) {
        *out << i.row->label << " on " << PlatformName(i.platform);
    }
};

std::vector<Instance> Instances() {
    std::vector<Instance> all;
    for (const CsvRow& row : kRows) {
        for (const std::string& soc : Split(row.socs, ',')) {
            if (std::optional<Platform> p = ProfileOf(soc)) all.push_back({&row, *p});
        }
    }
    return all;
}

Param ParamOf(const CsvRow& row) {
    return std::get<Param>(io::ParseParam("ReshapeAndCache", nlohmann::json::parse(row.param)));
}

// A passing row with at most 64 tokens and as few blocks as hold them: random tokens and caches, distinct
// slots in [-slots, slots).
TestCall ReducedCall(const Instance& instance, const std::vector<TensorDesc>& inputs) {
    TestCall call;
    call.param = ParamOf(*instance.row);
    call.platform = instance.platform;
    NameInputs(call);
    std::vector<TensorDesc> descs = inputs;
    const int keyCache = call.IndexOf("keyCache");
    const bool nz = descs[keyCache].format == ACL_FORMAT_FRACTAL_NZ;
    const int64_t blockSize = descs[keyCache].shape.dims[nz ? 2 : 1];
    int64_t tokens = std::min<int64_t>(descs[0].shape.dims[0], 64);
    const int64_t blocks =
        std::min(descs[keyCache].shape.dims[0], std::max<int64_t>(1, (tokens + blockSize - 1) / blockSize));
    tokens = std::min(tokens, 2 * blocks * blockSize);
    std::mt19937_64 rng(17);
    for (size_t i = 0; i < descs.size(); ++i) {
        const std::string& name = call.inputNames.at(i);
        if (name == "key" || name == "value" || name == "slotMapping") descs[i].shape.dims[0] = tokens;
        if (name == "keyCache" || name == "valueCache") descs[i].shape.dims[0] = blocks;
        io::HostTensor t = ZeroTensor(descs[i]);
        if (name == "slotMapping") {
            std::vector<int32_t> slots(2 * static_cast<size_t>(blocks * blockSize));
            std::iota(slots.begin(), slots.end(), static_cast<int32_t>(-blocks * blockSize));
            std::shuffle(slots.begin(), slots.end(), rng);
            std::copy_n(slots.begin(), tokens, Elements<int32_t>(t).begin());
        } else {
            verify::FillUniform(t.bytes.data(), t.desc.dtype, static_cast<int64_t>(ElementCount(t.desc)),
                                -100, 100, rng);
        }
        call.inputs.push_back(std::move(t));
    }
    AttachOutputs(call);
    return call;
}

bool SameDesc(const TensorDesc& a, const TensorDesc& b) {
    return a.dtype == b.dtype && a.format == b.format && ShapeToString(a.shape) == ShapeToString(b.shape);
}

class RacCsvTest : public testing::TestWithParam<Instance> {};

TEST_P(RacCsvTest, PublicApiGivesTheSheetsOutcome) {
    const CsvRow& row = *GetParam().row;
    const Platform platform = GetParam().platform;
    const Outcome want = OutcomeOf(row);
    Operation* raw = nullptr;
    const Status created = CreateOperation(ParamOf(row), &raw, platform);
    std::unique_ptr<Operation> op(raw);
    if (!created.ok() || want.stage == 'C') {
        EXPECT_EQ(want.stage, 'C') << created.ToString();
        EXPECT_EQ(ErrorTypeName(created.code()), want.code) << created.ToString();
        return;
    }
    const std::vector<TensorDesc> inputs = DescsOf(row.inDtypes, row.inFormats, row.inShapes);
    const std::vector<TensorDesc> outputs = DescsOf(row.outDtypes, row.outFormats, row.outShapes);
    SVector<TensorDesc> inferred;
    const Status shaped = op->InferShape(SVector<TensorDesc>(inputs.begin(), inputs.end()), inferred);
    if (!shaped.ok() || want.stage == 'I') {
        EXPECT_EQ(want.stage, 'I') << shaped.ToString();
        EXPECT_EQ(ErrorTypeName(shaped.code()), want.code) << shaped.ToString();
        return;
    }
    if (want.stage == 'S') {  // the sheet's descriptors, without data: the failure precedes the memory checks
        VariantPack pack;
        for (const TensorDesc& d : inputs)
            pack.inTensors.push_back(Tensor{d, nullptr, nullptr, 0});
        for (const TensorDesc& d : outputs)
            pack.outTensors.push_back(Tensor{d, nullptr, nullptr, 0});
        uint64_t workspace = 0;
        Context context{platform, 1, Backend::kAuto};
        const Status setup = op->Setup(pack, workspace, &context);
        EXPECT_EQ(ErrorTypeName(setup.code()), want.code) << setup.ToString();
        return;
    }
    ASSERT_EQ(inferred.size(), outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i)
        EXPECT_TRUE(SameDesc(inferred[i], outputs[i])) << "output " << i;
    TestCall call = ReducedCall(GetParam(), inputs);
    const RunResult run = Execute(call, Backend::kAuto);
    EXPECT_TRUE(run.status.ok()) << run.status.ToString();
}

std::string InstanceName(const testing::TestParamInfo<Instance>& info) {
    std::string name = std::string(info.param.row->label) + "_" + PlatformName(info.param.platform);
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(Sheet, RacCsvTest, testing::ValuesIn(Instances()), InstanceName);

TEST(RacCsv, OnlyAscend310BRowsAreLeftOut) {
    std::vector<std::string> untested;
    for (const CsvRow& row : kRows) {
        bool tested = false;
        for (const std::string& soc : Split(row.socs, ','))
            tested = tested || ProfileOf(soc).has_value();
        if (!tested) untested.emplace_back(row.label);
    }
    EXPECT_EQ(untested,
              (std::vector<std::string>{"row 33", "row 34", "row 35", "row 36", "row 37", "row 38"}));
}

}  // namespace
}  // namespace atbx::test
