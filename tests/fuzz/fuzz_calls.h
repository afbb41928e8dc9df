// Calls for the fuzz targets: the seed calls every decoded call starts from (the valid-call catalogues of
// PagedAttention and SelfAttention, ReshapeAndCache in every mode and profile), and the decoder that turns
// fuzzer bytes into a call: a seed, then changes to its param (any field, through the case-file JSON param,
// CONTRACTS 7), platform, tensor descriptors, tensor list, data pointers and tensor contents.
#ifndef ATBX_TESTS_FUZZ_FUZZ_CALLS_H
#define ATBX_TESTS_FUZZ_FUZZ_CALLS_H

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_call.h"

namespace atbx::fuzz {

struct SeedCall {
    std::string name;  // the catalogue's name ("pa.a2.decode" ...)
    test::TestCall call;
};

// Seed calls whose tensors hold at most `maxBytes` bytes in all (keeps one execution fast), each valid.
const std::vector<SeedCall>& SeedCalls(size_t maxBytes);

// Writes one fuzzer input per seed call into dir (file name: the call's name): the input that decodes to the
// seed call unchanged.
void WriteSeedInputs(const std::vector<SeedCall>& seeds, const std::filesystem::path& dir);

// Reports a finding on stderr and aborts, so libFuzzer saves the input.
[[noreturn]] void Fail(const std::string& what);

// A seed call (chosen by the first byte) with up to 8 changes decoded from the rest.
test::TestCall DecodeCall(const std::vector<SeedCall>& seeds, FuzzedDataProvider& data);

}  // namespace atbx::fuzz

#endif  // ATBX_TESTS_FUZZ_FUZZ_CALLS_H
