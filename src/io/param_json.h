// The three param structs from and to case-file JSON: ATB's field names, enums as integers, absent fields at
// ATB's defaults. Unknown fields and wrong JSON types are IoErrors; out-of-range enum values are kept, for
// the rules to reject.
#ifndef ATBX_IO_PARAM_JSON_H
#define ATBX_IO_PARAM_JSON_H

#include <nlohmann/json.hpp>
#include <string_view>

#include "io/op_param.h"

namespace atbx::io {

// Parses `param` for the op named `op`; throws IoError for an unknown op, an unknown field or a wrong type.
OpParam ParseParam(std::string_view op, const nlohmann::json& param);

// Every field, by ATB name (the form ParseParam reads).
nlohmann::json ParamToJson(const OpParam& param);

}  // namespace atbx::io

#endif  // ATBX_IO_PARAM_JSON_H
