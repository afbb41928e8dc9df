// Running one valid call on the reference and on every CPU path of the dispatch registry, and comparing: an
// attention call must meet ATB's precision standard (src/verify/precision.h, epsilon for the call's own head
// size and longest key range) against the float64 reference on every path that accepts it; a cache write must
// write the same bytes on every path. With otherThreads, each path runs the call again on that many threads
// and must write the same bytes as on `threads` (the schedule's grouping and the threads' cached tiles depend
// on the thread count, the results must not). The property test and the regression cases use it.
#ifndef ATBX_TESTS_SUPPORT_EVERY_PATH_H
#define ATBX_TESTS_SUPPORT_EVERY_PATH_H

#include <string>
#include <vector>

#include "support/test_call.h"

namespace atbx::test {

struct PathReport {
    std::string failure;               // empty when every path agrees
    std::vector<std::string> ran;      // the CPU paths that ran the call
    std::vector<std::string> refused;  // the CPU paths that refused it (dispatch.cpu.unsupported)
};

PathReport CheckEveryPath(const TestCall& call, int threads = 2, int otherThreads = 0);

}  // namespace atbx::test

#endif  // ATBX_TESTS_SUPPORT_EVERY_PATH_H
