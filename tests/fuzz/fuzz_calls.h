// Calls for the fuzz targets: the seed calls every decoded call starts from (the valid-call catalogues of
// PagedAttention and SelfAttention, ReshapeAndCache in every mode and profile), and the decoder that turns
// fuzzer bytes into a call: a seed, then changes to its param (any field, through the case-file JSON param,
// CONTRACTS 7), platform, tensor descriptors, tensor list, data pointers and tensor contents.
#ifndef ATBX_TESTS_FUZZ_FUZZ_CALLS_H
#define ATBX_TESTS_FUZZ_FUZZ_CALLS_H

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/test_call.h"

namespace atbx::fuzz {

struct SeedCall {
    std::string name;  // the catalogue's name ("pa.a2.decode" ...)
    std::function<test::TestCall()> make;
};

// The seed calls, by name; nothing is built until used.
const std::vector<SeedCall>& SeedCalls();

// Seed call `index`, built on first use (and kept); nullptr when its tensors hold more than `maxBytes` bytes
// in all (one execution stays fast).
const test::TestCall* BuiltSeed(size_t index, size_t maxBytes);

// Writes one fuzzer input per seed call into dir (file name: the call's name): the input that decodes to the
// seed call unchanged.
void WriteSeedInputs(const std::filesystem::path& dir);

// Reports a finding on stderr and aborts, so libFuzzer saves the input.
[[noreturn]] void Fail(const std::string& what);

// A seed call (chosen by the last bytes) with up to 8 changes decoded from the rest; nothing when the seed is
// over `maxBytes`.
std::optional<test::TestCall> DecodeCall(FuzzedDataProvider& data, size_t maxBytes);

}  // namespace atbx::fuzz

#endif  // ATBX_TESTS_FUZZ_FUZZ_CALLS_H
