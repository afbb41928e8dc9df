// The case-file and .npy readers from bytes (the entry points fuzzers call): hostile JSON and headers end in
// an IoError with a bounded, escaped message, never a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/case_file.h"
#include "io/npy.h"
#include "io/user_text.h"

namespace atbx::io {
namespace {

std::span<const uint8_t> Bytes(const std::string& text) {
    return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// The IoError message of parsing `text` as a case file, or "" when it parses.
std::string CaseError(const std::string& text) {
    try {
        ParseCaseText(Bytes(text), "case.json");
    } catch (const IoError& e) {
        return e.what();
    }
    return "";
}

const std::string kValid =
    R"({"op": "PagedAttention", "param": {"headNum": 4}, "inputs": [{"file": "q.npy", "dtype": "float16"}],
        "outputs": [{"file": "out.npy"}]})";

TEST(CaseText, ValidCaseParses) {
    const CaseText c = ParseCaseText(Bytes(kValid), "case.json");
    ASSERT_EQ(c.inputs.size(), 1u);
    EXPECT_EQ(c.inputs[0].file, "q.npy");
    EXPECT_EQ(c.inputs[0].dtype, ACL_FLOAT16);
    EXPECT_EQ(c.outputFiles, std::vector<std::string>{"out.npy"});
    EXPECT_EQ(std::get<infer::PagedAttentionParam>(c.param).headNum, 4);
}

TEST(CaseText, DeepNestingIsAnErrorNotAStackOverflow) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    std::string text = kValid;
    text.replace(text.find("\"headNum\""), 0, "\"unknown\": " + deep + ", ");
    const std::string error = CaseError(text);
    EXPECT_NE(error.find("nested deeper than 32 levels at param.unknown[0]"), std::string::npos) << error;
    EXPECT_NE(CaseError(deep).find("nested deeper"), std::string::npos);
}

TEST(CaseText, DuplicateKeysAreErrors) {
    std::string text = kValid;
    text.replace(text.find("\"headNum\""), 0, "\"headNum\": 8, ");
    EXPECT_NE(CaseError(text).find("duplicate key \"headNum\" in param"), std::string::npos)
        << CaseError(text);
}

TEST(CaseText, RangeErrorsNameTheField) {
    std::string text = kValid;
    text.replace(text.find("4}"), 1, "1e999");
    EXPECT_NE(CaseError(text).find("number out of range at param.headNum"), std::string::npos)
        << CaseError(text);
    text = kValid;
    text.replace(text.find("4}"), 1, "18446744073709551615");
    EXPECT_NE(CaseError(text).find("must be an integer that fits its field"), std::string::npos);
}

TEST(CaseText, EveryDtypeAndFormatNameRoundTrips) {
    for (int value = -1; value < 64; ++value) {
        const auto dtype = static_cast<aclDataType>(value);
        if (std::string(DataTypeName(dtype)) != "undefined") {
            EXPECT_EQ(ParseDataType(DataTypeName(dtype)), dtype) << value;
            EXPECT_NE(NpyItemSize(NpyDescr(dtype)), 0u) << DataTypeName(dtype);
        }
        const auto format = static_cast<aclFormat>(value);
        if (std::string(FormatName(format)) != "undefined") {
            EXPECT_EQ(ParseFormat(FormatName(format)), format);
        }
    }
    EXPECT_EQ(ParseDataType("bool"), ACL_BOOL);
    EXPECT_EQ(ParseFormat("NC1HWC0"), ACL_FORMAT_NC1HWC0);
}

TEST(UserText, CapsAndEscapes) {
    EXPECT_EQ(Printable("a\x1b[2K\nb\\"), "a\\x1b[2K\\x0ab\\x5c");
    EXPECT_EQ(Quoted("say \"hi\""), "\"say \\x22hi\\x22\"");
    const std::string shown = Printable(std::string(5 << 20, 'A'));
    // Two comparisons, not one with `std::string(...) + "..."`: GCC 12 reports a false -Warray-bounds in the
    // inlined concatenation when the test headers are precompiled.
    EXPECT_EQ(shown.substr(0, kShownBytes), std::string(kShownBytes, 'A'));
    EXPECT_EQ(shown.substr(kShownBytes), "... (5242880 bytes)");
}

TEST(Npy, HeaderLongerThanTheBoundIsRefusedBeforeReading) {
    std::string bytes = "\x93NUMPY";
    bytes += {2, 0, 0, 0, 0, 0x40};  // version 2, header length 1 GiB
    try {
        ParseNpyHeader(Bytes(bytes), "x.npy");
        FAIL() << "accepted";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("atbx reads at most 65536"), std::string::npos) << e.what();
    }
}

TEST(Npy, ParsesFromBytes) {
    const std::string header = NpyFileHeader("|b1", std::vector<int64_t>{3});
    const std::string file = header + std::string{1, 0, 1};
    const NpyArray array = ParseNpy(Bytes(file), "mask.npy");
    EXPECT_EQ(array.descr, "|b1");
    EXPECT_EQ(array.shape, std::vector<int64_t>{3});
    ASSERT_EQ(array.data.span().size(), 3u);
    EXPECT_EQ(array.data.span()[2], 1);
    EXPECT_EQ(header.size() % 64, 0u);
}

}  // namespace
}  // namespace atbx::io
