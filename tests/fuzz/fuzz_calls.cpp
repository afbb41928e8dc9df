#include "fuzz_calls.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "io/npy.h"
#include "io/param_json.h"
#include "support/pa_calls.h"
#include "support/rac_calls.h"
#include "support/sa_valid_calls.h"

namespace atbx::fuzz {
namespace {

using test::TestCall;

size_t TotalBytes(const TestCall& call) {
    size_t total = 0;
    for (const io::HostTensor& t : call.inputs)
        total += t.bytes.size();
    for (const io::HostTensor& t : call.outputs)
        total += t.bytes.size();
    return total;
}

std::vector<SeedCall> AllSeeds() {
    std::vector<SeedCall> seeds;
    for (const test::PaValidCall& c : test::PaValidCalls())
        seeds.push_back({"pa." + c.name, c.make});
    for (const test::SaValidCall& c : test::SaValidCalls())
        seeds.push_back({"sa." + c.name, c.make});
    const std::pair<const char*, Platform> platforms[] = {{"a2", Platform::kAtlasA2},
                                                          {"inference", Platform::kAtlasInference},
                                                          {"training", Platform::kAtlasTraining},
                                                          {"350", Platform::kAtlas350}};
    // Every mode on every profile: the combinations a profile rejects are seeds for the rules.
    for (const auto& named : platforms) {
        const auto [platformName, platform] = named;
        for (int compress = 0; compress <= 2; ++compress) {
            for (int cfg = 0; cfg <= 2; ++cfg) {
                seeds.push_back({std::string("rac.") + platformName + ".compress" + std::to_string(compress) +
                                     ".cfg" + std::to_string(cfg),
                                 [compress, cfg, on = platform] {
                                     return test::MakeRacCall(test::RacParam(compress, cfg), {}, on);
                                 }});
            }
        }
    }
    return seeds;
}

// Dims and values that sit on the rules' edges: 0, 1, negative, block and tile sizes, overflow bait.
int64_t EdgeValue(FuzzedDataProvider& data) {
    static constexpr int64_t kEdges[] = {-1,
                                         0,
                                         1,
                                         2,
                                         3,
                                         15,
                                         16,
                                         17,
                                         64,
                                         127,
                                         128,
                                         129,
                                         256,
                                         576,
                                         2048,
                                         4096,
                                         std::numeric_limits<int32_t>::max(),
                                         std::numeric_limits<int32_t>::min(),
                                         std::numeric_limits<int64_t>::max() / 3,
                                         std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min()};
    if (data.ConsumeBool()) return data.PickValueInArray(kEdges);
    return data.ConsumeIntegral<int64_t>();
}

void ChangeParamField(TestCall& call, FuzzedDataProvider& data) {
    nlohmann::json param = io::ParamToJson(call.param);
    if (param.empty()) return;
    auto field = param.begin();
    std::advance(field, data.ConsumeIntegralInRange<size_t>(0, param.size() - 1));
    if (field->is_boolean()) {
        *field = data.ConsumeBool();
    } else if (field->is_number_float()) {
        static constexpr float kSpecial[] = {0.0f,
                                             -0.0f,
                                             1.0f,
                                             -1.0f,
                                             1e-30f,
                                             1e30f,
                                             std::numeric_limits<float>::infinity(),
                                             std::numeric_limits<float>::quiet_NaN(),
                                             std::numeric_limits<float>::denorm_min()};
        *field = data.ConsumeBool() ? data.PickValueInArray(kSpecial) : data.ConsumeFloatingPoint<float>();
    } else if (field->is_number()) {
        *field = data.ConsumeBool() ? data.ConsumeIntegralInRange<int64_t>(-2, 12) : EdgeValue(data);
    } else if (field->is_array() && !field->empty()) {
        (*field)[data.ConsumeIntegralInRange<size_t>(0, field->size() - 1)] = data.ConsumeIntegral<uint8_t>();
    }
    try {
        call.param = io::ParseParam(io::OpName(call.param), param);
    } catch (const io::IoError&) {
        // A value the field's storage cannot hold: the case-file reader refuses it, so no call carries it.
    }
}

io::HostTensor* PickTensor(TestCall& call, FuzzedDataProvider& data) {
    const size_t count = call.inputs.size() + call.outputs.size();
    if (count == 0) return nullptr;
    const size_t index = data.ConsumeIntegralInRange<size_t>(0, count - 1);
    return index < call.inputs.size() ? &call.inputs[index] : &call.outputs[index - call.inputs.size()];
}

void ChangeTensor(TestCall& call, FuzzedDataProvider& data, int kind) {
    io::HostTensor* tensor = PickTensor(call, data);
    if (tensor == nullptr) return;
    Dims& shape = tensor->desc.shape;
    switch (kind) {
        case 0:
            if (shape.dimNum > 0)
                shape.dims[data.ConsumeIntegralInRange<uint64_t>(0, shape.dimNum - 1)] = EdgeValue(data);
            break;
        case 1:
            // Ranks beyond MAX_DIM too: a descriptor is caller data.
            shape.dimNum = data.ConsumeIntegralInRange<uint64_t>(0, MAX_DIM + 2) % (MAX_DIM + 1);
            break;
        case 2:
            tensor->desc.dtype = static_cast<aclDataType>(data.ConsumeIntegralInRange<int>(-1, 40));
            break;
        case 3:
            tensor->desc.format = static_cast<aclFormat>(data.PickValueInArray({-1, 0, 1, 2, 3, 4, 29, 30}));
            break;
        case 4: {
            // An int32 element: host values (lengths, offsets), block tables, slots.
            if (tensor->bytes.size() < sizeof(int32_t)) break;
            const size_t at =
                data.ConsumeIntegralInRange<size_t>(0, tensor->bytes.size() / sizeof(int32_t) - 1);
            const auto value = static_cast<int32_t>(
                data.ConsumeBool() ? EdgeValue(data) : data.ConsumeIntegralInRange<int32_t>(-2, 70));
            std::memcpy(tensor->bytes.data() + at * sizeof(int32_t), &value, sizeof(value));
            break;
        }
        default: {
            // Raw bytes anywhere (NaN, inf, extreme values in float data).
            if (tensor->bytes.empty()) break;
            const size_t at = data.ConsumeIntegralInRange<size_t>(0, tensor->bytes.size() - 1);
            const std::vector<uint8_t> bytes =
                data.ConsumeBytes<uint8_t>(std::min<size_t>(4, tensor->bytes.size() - at));
            std::copy(bytes.begin(), bytes.end(), tensor->bytes.begin() + static_cast<std::ptrdiff_t>(at));
            break;
        }
    }
}

void ChangeTensorList(TestCall& call, FuzzedDataProvider& data) {
    std::vector<io::HostTensor>& list = data.ConsumeBool() ? call.inputs : call.outputs;
    if (data.ConsumeBool() && !list.empty()) {
        list.erase(list.begin() + data.ConsumeIntegralInRange<std::ptrdiff_t>(0, std::ssize(list) - 1));
    } else if (!list.empty() && list.size() < 24) {
        const io::HostTensor copy = list[data.ConsumeIntegralInRange<size_t>(0, list.size() - 1)];
        list.insert(list.begin() + data.ConsumeIntegralInRange<std::ptrdiff_t>(0, std::ssize(list)), copy);
    }
}

void Detach(TestCall& call, FuzzedDataProvider& data) {
    if (call.inputNames.empty()) return;
    call.detachedInputs.push_back(
        call.inputNames[data.ConsumeIntegralInRange<size_t>(0, call.inputNames.size() - 1)]);
}

void ChangePlatform(TestCall& call, FuzzedDataProvider& data) {
    call.platform = data.PickValueInArray(
        {Platform::kAtlasA2, Platform::kAtlasInference, Platform::kAtlasTraining, Platform::kAtlas350});
}

}  // namespace

const std::vector<SeedCall>& SeedCalls() {
    static const std::vector<SeedCall> seeds = AllSeeds();
    return seeds;
}

const TestCall* BuiltSeed(size_t index, size_t maxBytes) {
    static std::vector<std::optional<TestCall>> built(SeedCalls().size());
    std::optional<TestCall>& call = built.at(index);
    if (!call) call = SeedCalls()[index].make();
    return TotalBytes(*call) <= maxBytes ? &*call : nullptr;
}

void Fail(const std::string& what) {
    std::fprintf(stderr, "atbx fuzz finding: %s\n", what.c_str());
    std::abort();
}

void WriteSeedInputs(const std::filesystem::path& dir) {
    const std::vector<SeedCall>& seeds = SeedCalls();
    std::filesystem::create_directories(dir);
    // ConsumeIntegralInRange reads as many bytes as the range needs from the end of the input, the last byte
    // the most significant: the index little-endian in that many bytes decodes to itself.
    size_t width = 0;
    for (size_t range = seeds.size() - 1; range > 0; range >>= 8)
        ++width;
    for (size_t i = 0; i < seeds.size(); ++i) {
        std::string input;
        for (size_t b = 0; b < width; ++b)
            input += static_cast<char>((i >> (8 * b)) & 0xFF);
        std::ofstream(dir / seeds[i].name, std::ios::binary) << input;
    }
}

std::optional<TestCall> DecodeCall(FuzzedDataProvider& data, size_t maxBytes) {
    const TestCall* seed =
        BuiltSeed(data.ConsumeIntegralInRange<size_t>(0, SeedCalls().size() - 1), maxBytes);
    if (seed == nullptr) return std::nullopt;
    TestCall call = *seed;
    for (int change = 0; change < 8 && data.remaining_bytes() > 0; ++change) {
        const int kind = data.ConsumeIntegralInRange<int>(0, 10);
        if (kind <= 2) {
            ChangeParamField(call, data);
        } else if (kind <= 8) {
            ChangeTensor(call, data, kind - 3);
        } else if (kind == 9) {
            data.ConsumeBool() ? ChangeTensorList(call, data) : Detach(call, data);
        } else {
            ChangePlatform(call, data);
        }
    }
    return call;
}

}  // namespace atbx::fuzz
