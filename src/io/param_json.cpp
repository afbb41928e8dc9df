#include "io/param_json.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/str_cat.h"
#include "io/json_reader.h"
#include "io/npy.h"
#include "io/user_text.h"

namespace atbx::io {
namespace {

using core::StrCat;
using nlohmann::json;

template <class P>
struct Field {
    const char* name;
    std::function<void(P&, const json&)> read;
    std::function<json(const P&)> write;
};

[[noreturn]] void TypeError(const char* field, const std::string& want, const json& got) {
    throw IoError(StrCat("param field '", field, "' must be ", want, ", got ", DescribeJson(got)));
}

// Integers and enums (stored as their underlying integer, range-checked against the storage type only). JSON
// integers beyond int64 arrive as uint64 (up to 2^64 - 1) or as floats (beyond), and are range errors too.
template <class P, class M>
Field<P> Integer(const char* name, M P::*member) {
    using Storage =
        typename std::conditional_t<std::is_enum_v<M>, std::underlying_type<M>, std::type_identity<M>>::type;
    return {name,
            [name, member](P& p, const json& v) {
                constexpr auto kMin = static_cast<int64_t>(std::numeric_limits<Storage>::min());
                constexpr auto kMax = static_cast<int64_t>(std::numeric_limits<Storage>::max());
                const std::string fits = StrCat("an integer that fits its field (", kMin, " to ", kMax, ")");
                if (v.is_number_float()) {
                    const double d = v.get<double>();
                    TypeError(name, std::trunc(d) == d && std::fabs(d) >= 0x1p63 ? fits : "an integer", v);
                }
                if (!v.is_number_integer()) TypeError(name, "an integer", v);
                if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMax))
                    TypeError(name, fits, v);
                const auto value = v.get<int64_t>();
                if (value < kMin || value > kMax) TypeError(name, fits, v);
                p.*member = static_cast<M>(value);
            },
            [member](const P& p) { return json(static_cast<int64_t>(p.*member)); }};
}

// Floats: a finite JSON number beyond float's range is an error, not a silent infinity.
template <class P>
Field<P> Float(const char* name, float P::*member) {
    return {name,
            [name, member](P& p, const json& v) {
                if (!v.is_number()) TypeError(name, "a number", v);
                const auto value = v.get<double>();
                if (std::fabs(value) > std::numeric_limits<float>::max()) {
                    TypeError(name, "a number that fits a float (|x| <= 3.4028235e38)", v);
                }
                p.*member = static_cast<float>(value);
            },
            [member](const P& p) { return json(p.*member); }};
}

template <class P>
Field<P> Bool(const char* name, bool P::*member) {
    return {name,
            [name, member](P& p, const json& v) {
                if (v.is_boolean()) {
                    p.*member = v.get<bool>();
                } else if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) {
                    p.*member = v.get<int64_t>() == 1;
                } else {
                    TypeError(name, "true, false, 0 or 1", v);
                }
            },
            [member](const P& p) { return json(p.*member); }};
}

template <class P, size_t N>
Field<P> Reserved(const char* name, uint8_t (P::*member)[N]) {
    return {
        name,
        [name, member](P& p, const json& v) {
            if (!v.is_array() || v.size() > N)
                TypeError(name, StrCat("an array of at most ", N, " bytes"), v);
            for (size_t i = 0; i < v.size(); ++i) {
                if (!v[i].is_number_integer() || v[i].get<int64_t>() < 0 || v[i].get<int64_t>() > 255) {
                    TypeError(name, "an array of integers in [0, 255]", v);
                }
                (p.*member)[i] = static_cast<uint8_t>(v[i].get<int64_t>());
            }
        },
        [member](const P& p) { return json(std::vector<int>(std::begin(p.*member), std::end(p.*member))); }};
}

using PaParam = infer::PagedAttentionParam;
using SaParam = infer::SelfAttentionParam;
using RacParam = infer::ReshapeAndCacheParam;

const std::vector<Field<PaParam>>& Fields(const PaParam*) {
    static const std::vector<Field<PaParam>> fields = {
        Integer("headNum", &PaParam::headNum),
        Float("qkScale", &PaParam::qkScale),
        Integer("kvHeadNum", &PaParam::kvHeadNum),
        Integer("maskType", &PaParam::maskType),
        Bool("batchRunStatusEnable", &PaParam::batchRunStatusEnable),
        Integer("quantType", &PaParam::quantType),
        Integer("outDataType", &PaParam::outDataType),
        Bool("hasQuantOffset", &PaParam::hasQuantOffset),
        Integer("compressType", &PaParam::compressType),
        Integer("calcType", &PaParam::calcType),
        Integer("scaleType", &PaParam::scaleType),
        Integer("inputLayout", &PaParam::inputLayout),
        Integer("mlaVHeadSize", &PaParam::mlaVHeadSize),
        Float("qScale", &PaParam::qScale),
        Reserved("rsv", &PaParam::rsv),
    };
    return fields;
}

const std::vector<Field<SaParam>>& Fields(const SaParam*) {
    static const std::vector<Field<SaParam>> fields = {
        Integer("quantType", &SaParam::quantType),
        Integer("outDataType", &SaParam::outDataType),
        Integer("headNum", &SaParam::headNum),
        Integer("kvHeadNum", &SaParam::kvHeadNum),
        Float("qScale", &SaParam::qScale),
        Float("qkScale", &SaParam::qkScale),
        Bool("batchRunStatusEnable", &SaParam::batchRunStatusEnable),
        Integer("isTriuMask", &SaParam::isTriuMask),
        Integer("calcType", &SaParam::calcType),
        Integer("kernelType", &SaParam::kernelType),
        Integer("clampType", &SaParam::clampType),
        Float("clampMin", &SaParam::clampMin),
        Float("clampMax", &SaParam::clampMax),
        Integer("maskType", &SaParam::maskType),
        Integer("kvcacheCfg", &SaParam::kvcacheCfg),
        Integer("scaleType", &SaParam::scaleType),
        Integer("inputLayout", &SaParam::inputLayout),
        Integer("mlaVHeadSize", &SaParam::mlaVHeadSize),
        Integer("cacheType", &SaParam::cacheType),
        Integer("windowSize", &SaParam::windowSize),
        Reserved("rsv", &SaParam::rsv),
    };
    return fields;
}

const std::vector<Field<RacParam>>& Fields(const RacParam*) {
    static const std::vector<Field<RacParam>> fields = {
        Integer("compressType", &RacParam::compressType),
        Integer("kvCacheCfg", &RacParam::kvCacheCfg),
        Reserved("rsv", &RacParam::rsv),
    };
    return fields;
}

template <class P>
P Parse(const json& object) {
    P param;
    const auto& fields = Fields(static_cast<const P*>(nullptr));
    for (const auto& item : object.items()) {
        // No structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const std::string& key = item.key();
        auto field =
            std::find_if(fields.begin(), fields.end(), [&](const Field<P>& f) { return key == f.name; });
        if (field == fields.end()) throw IoError(StrCat("unknown param field '", Printable(key), "'"));
        field->read(param, item.value());
    }
    return param;
}

template <class P>
json ToJson(const P& param) {
    json object = json::object();
    for (const Field<P>& field : Fields(static_cast<const P*>(nullptr)))
        object[field.name] = field.write(param);
    return object;
}

}  // namespace

OpParam ParseParam(std::string_view op, const json& param) {
    if (!param.is_object())
        throw IoError(StrCat("\"param\" must be a JSON object, got ", DescribeJson(param)));
    if (op == "PagedAttention") return Parse<PaParam>(param);
    if (op == "SelfAttention") return Parse<SaParam>(param);
    if (op == "ReshapeAndCache") return Parse<RacParam>(param);
    throw IoError(
        StrCat("unknown op ", Quoted(op), " (expected PagedAttention, SelfAttention or ReshapeAndCache)"));
}

json ParamToJson(const OpParam& param) {
    return std::visit([](const auto& p) { return ToJson(p); }, param);
}

}  // namespace atbx::io
