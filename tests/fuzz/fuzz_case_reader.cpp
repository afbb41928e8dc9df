// Fuzz target: the case-file reader. Input byte 0 picks the entry point:
//   0: io::ParseNpy over the rest (a .npy file's bytes);
//   1: a case directory: chunks of [uint32 little-endian length][bytes], the first written as case.json and
//      the next as t0.npy, t1.npy ... beside it; io::LoadCase reads it, and a case that loads is validated
//      (io::CheckCase), as `atbx check` does.
// A malformed file must be an IoError or a rule violation, never a crash, an over-read or a leak.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include "fuzz_calls.h"
#include "io/case_file.h"
#include "io/case_runner.h"
#include "io/npy.h"
#include "support/case_writer.h"

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxSeedBytes = 64 << 10;
constexpr int kMaxFiles = 24;

const fs::path& CaseDir() {
    static const fs::path dir = [] {
        const fs::path made = fs::temp_directory_path() / ("atbx_fuzz_case_" + std::to_string(getpid()));
        fs::create_directories(made);
        return made;
    }();
    return dir;
}

void WriteFile(const fs::path& path, std::span<const uint8_t> bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The next chunk: a length, then that many bytes (fewer when the input ends first).
std::span<const uint8_t> NextChunk(std::span<const uint8_t>& rest) {
    if (rest.size() < 4) {
        rest = {};
        return {};
    }
    const uint32_t length =
        rest[0] | (rest[1] << 8) | (rest[2] << 16) | (static_cast<uint32_t>(rest[3]) << 24);
    rest = rest.subspan(4);
    const std::span<const uint8_t> chunk = rest.first(std::min<size_t>(length, rest.size()));
    rest = rest.subspan(chunk.size());
    return chunk;
}

void AppendChunk(std::string& input, const std::string& bytes) {
    const auto length = static_cast<uint32_t>(bytes.size());
    for (int shift = 0; shift < 32; shift += 8)
        input += static_cast<char>((length >> shift) & 0xFF);
    input += bytes;
}

std::string ReadText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Seeds: each small seed call as a case directory (its case.json with inputs renamed t<i>.npy), and each of
// its .npy files alone.
void WriteSeeds(const fs::path& dir) {
    fs::create_directories(dir);
    const fs::path scratch = CaseDir() / "seed";
    for (size_t index = 0; index < atbx::fuzz::SeedCalls().size(); ++index) {
        const atbx::test::TestCall* built = atbx::fuzz::BuiltSeed(index, kMaxSeedBytes);
        if (built == nullptr) continue;
        const atbx::fuzz::SeedCall& seed = atbx::fuzz::SeedCalls()[index];
        atbx::test::TestCall call = *built;
        call.inputNames.clear();
        for (size_t i = 0; i < call.inputs.size(); ++i)
            call.inputNames.push_back("t" + std::to_string(i));
        fs::remove_all(scratch);
        atbx::test::WriteCase(call, scratch, seed.name);
        std::string caseInput(1, '\1');
        AppendChunk(caseInput, ReadText(scratch / "case.json"));
        for (size_t i = 0; i < call.inputs.size(); ++i) {
            const std::string npy = ReadText(scratch / ("t" + std::to_string(i) + ".npy"));
            AppendChunk(caseInput, npy);
            std::ofstream(dir / (seed.name + ".t" + std::to_string(i) + ".npy"), std::ios::binary)
                << '\0' << npy;
        }
        std::ofstream(dir / (seed.name + ".case"), std::ios::binary) << caseInput;
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("ATBX_FUZZ_SEED_DIR")) WriteSeeds(dir);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    using namespace atbx;
    if (size == 0) return 0;
    std::span<const uint8_t> rest(bytes + 1, size - 1);
    if (bytes[0] == 0) {
        try {
            (void)io::ParseNpy(rest, "fuzz.npy");
        } catch (const io::IoError&) {
        }
        return 0;
    }
    const fs::path& dir = CaseDir();
    WriteFile(dir / "case.json", NextChunk(rest));
    for (int i = 0; i < kMaxFiles; ++i) {
        const fs::path file = dir / ("t" + std::to_string(i) + ".npy");
        if (rest.empty()) {
            fs::remove(file);
        } else {
            WriteFile(file, NextChunk(rest));
        }
    }
    try {
        const io::CaseFile loaded = io::LoadCase(dir / "case.json", io::LoadOptions{});
        const io::CaseOutcome outcome = io::CheckCase(loaded);
        if (!outcome.status.ok() && outcome.status.rule().empty())
            fuzz::Fail("a violation without a rule id");
    } catch (const io::IoError&) {
    }
    return 0;
}
