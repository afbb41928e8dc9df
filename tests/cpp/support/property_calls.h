// Random valid calls for the property test, and their shrinking. A Sample is a param and platform taken from
// a valid-call catalogue entry (so every feature and profile the catalogues cover is drawn), with random
// geometry: batches, context and query lengths, head counts (GQA ratios 1 to 16), head size, block size, mask
// layout, dtype. Samples the rules reject are drawn again. Shrinking proposes smaller samples: fewer batches,
// shorter contexts, fewer heads, smaller heads.
#ifndef ATBX_TESTS_SUPPORT_PROPERTY_CALLS_H
#define ATBX_TESTS_SUPPORT_PROPERTY_CALLS_H

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "support/pa_calls.h"
#include "support/rac_calls.h"
#include "support/sa_calls.h"

namespace atbx::test {

struct Sample {
    std::string origin;  // the catalogue entry the param comes from
    io::OpParam param;
    Platform platform = Platform::kAtlasA2;
    std::variant<PaShape, SaShape, RacShape> shape;

    TestCall Make() const;
    // "pa.a2.decode heads 8/2 D 64 block 16 lens [17, 40] ..." for failure messages.
    std::string Describe() const;
};

// A random sample that passes every rule (nullopt after `attempts` rejected draws).
std::optional<Sample> DrawValidSample(std::mt19937_64& rng, int attempts = 64);

// Smaller variants of a sample (each may be invalid: the caller validates).
std::vector<Sample> ShrinkCandidates(const Sample& sample);

// Repeatedly replaces the sample by its first valid shrink candidate that still fails, until none does.
// `fails` returns a failure description, empty when the sample passes.
Sample Shrink(Sample sample, const std::function<std::string(const Sample&)>& fails, int maxSteps = 400);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_PROPERTY_CALLS_H
