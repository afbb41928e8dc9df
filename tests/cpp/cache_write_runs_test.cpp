// CacheWriteStream::Add (plan/cache_write.h): which rows join the last run. Both cache-write kernels copy row
// r of a run from srcOffset + r * srcRunStride to dstOffset + r * dstRunStride, so a row may join only where
// it is exactly the next row at both ends; means and FRACTAL_NZ rows never join.
#include <gtest/gtest.h>

#include "plan/cache_write.h"

namespace atbx::test {
namespace {

using plan::CacheWriteStream;
using plan::RowWrite;

CacheWriteStream NdStream() {
    CacheWriteStream stream;
    stream.channels = 128;
    stream.srcRunStride = 1024;  // next token of 8 heads x 128 channels
    stream.dstRunStride = 128;   // next slot of a compressed cache
    return stream;
}

RowWrite Row(int64_t src, int64_t dst) {
    RowWrite row;
    row.srcOffset = src;
    row.dstOffset = dst;
    return row;
}

TEST(CacheWriteRuns, RowsThatFollowAtBothEndsJoinOneRun) {
    CacheWriteStream stream = NdStream();
    for (int64_t r = 0; r < 5; ++r)
        stream.Add(Row(256 + r * 1024, 640 + r * 128));
    ASSERT_EQ(stream.rows.size(), 1u);
    EXPECT_EQ(stream.rows[0].runRows, 5);
    EXPECT_EQ(stream.rows[0].srcOffset, 256);
    EXPECT_EQ(stream.rows[0].dstOffset, 640);
    EXPECT_EQ(stream.RowCount(), 5);
}

TEST(CacheWriteRuns, RowsThatFollowAtOneEndOnlyStartARun) {
    CacheWriteStream stream = NdStream();
    stream.Add(Row(0, 0));
    stream.Add(Row(1024, 0 + 2 * 128));   // next source row, a slot further on
    stream.Add(Row(0, 3 * 128));          // back to the first source row, the next slot
    stream.Add(Row(2048 + 64, 4 * 128));  // a different head
    ASSERT_EQ(stream.rows.size(), 4u);
    for (const RowWrite& row : stream.rows)
        EXPECT_EQ(row.runRows, 1);
    EXPECT_EQ(stream.RowCount(), 4);
}

TEST(CacheWriteRuns, MeansNeverJoin) {
    CacheWriteStream stream = NdStream();
    stream.Add(Row(0, 0));
    RowWrite mean = Row(1024, 128);
    mean.srcRows = 3;
    mean.srcRowStride = 1024;
    stream.Add(mean);
    stream.Add(Row(2048, 256));
    ASSERT_EQ(stream.rows.size(), 3u);
    EXPECT_EQ(stream.rows[1].srcRows, 3);
    EXPECT_EQ(stream.rows[1].runRows, 1);
}

TEST(CacheWriteRuns, NzStreamsAndStreamsWithoutStepsNeverJoin) {
    CacheWriteStream nz = NdStream();
    nz.dstChannelTile = 16;
    CacheWriteStream stepless = NdStream();
    stepless.dstRunStride = 0;
    for (CacheWriteStream* stream : {&nz, &stepless}) {
        for (int64_t r = 0; r < 3; ++r)
            stream->Add(
                Row(r * 1024, r * 128));  // the next row at both ends, were the steps those of NdStream
        EXPECT_EQ(stream->rows.size(), 3u);
    }
}

}  // namespace
}  // namespace atbx::test
