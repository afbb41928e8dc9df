// core::StrCat prints every value as an ostream with its default settings prints it, without building one for
// text, characters, numbers and plain enums (src/core/str_cat.h).
#include "core/str_cat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include "atbx/types.h"

namespace atbx::test {
namespace {

template <class T>
std::string Streamed(const T& value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

template <class T>
void ExpectPrintedAsStreamed(const T& value) {
    EXPECT_EQ(core::StrCat(value), Streamed(value)) << "for " << Streamed(value);
}

TEST(StrCat, PrintsIntegersAsAnOstream) {
    ExpectPrintedAsStreamed(0);
    ExpectPrintedAsStreamed(-17);
    ExpectPrintedAsStreamed(std::numeric_limits<int64_t>::min());
    ExpectPrintedAsStreamed(std::numeric_limits<uint64_t>::max());
    ExpectPrintedAsStreamed(int16_t{-300});
    ExpectPrintedAsStreamed(uint32_t{4000000000u});
    ExpectPrintedAsStreamed(true);
    ExpectPrintedAsStreamed(false);
}

TEST(StrCat, PrintsCharactersAsCharactersAsAnOstream) {
    ExpectPrintedAsStreamed('x');
    ExpectPrintedAsStreamed(int8_t{65});  // 'A', as an ostream prints int8_t
    ExpectPrintedAsStreamed(uint8_t{97});
}

TEST(StrCat, PrintsFloatingPointAsAnOstream) {
    for (const double v : {0.0, -0.0, 0.0884, 1.0 / 3.0, 1e-5, 123456.0, 1234567.0, 1e20, -2.5e-300, 5e-324,
                           std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), std::nan("")}) {
        ExpectPrintedAsStreamed(v);
        ExpectPrintedAsStreamed(static_cast<float>(v));
    }
    ExpectPrintedAsStreamed(-60000.0f);
}

TEST(StrCat, PrintsTextAndEnumsAsAnOstream) {
    const char* nothing = nullptr;
    EXPECT_EQ(core::StrCat("a", nothing, "b"), "ab");
    EXPECT_EQ(core::StrCat(std::string("key"), std::string_view("Cache"), ' ', "dims"), "keyCache dims");
    ExpectPrintedAsStreamed(ACL_BF16);  // a plain enum prints as its number
    EXPECT_EQ(core::StrCat("headNum must be > 0, got ", 0, ", ratio ", 2.5, '.'),
              "headNum must be > 0, got 0, ratio 2.5.");
}

}  // namespace
}  // namespace atbx::test
