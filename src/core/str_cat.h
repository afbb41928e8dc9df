// StrCat: builds a message from values of any streamable type ("headNum must be > 0, got ", 0).
#ifndef ATBX_CORE_STR_CAT_H
#define ATBX_CORE_STR_CAT_H

#include <sstream>
#include <string>

namespace atbx::core {

template <class... Args>
std::string StrCat(const Args&... args) {
    std::ostringstream out;
    (out << ... << args);
    return out.str();
}

}  // namespace atbx::core

#endif  // ATBX_CORE_STR_CAT_H
