#include "io/paths.h"

#include <algorithm>

#include "core/str_cat.h"
#include "io/npy.h"
#include "io/user_text.h"

namespace atbx::io {

using core::StrCat;

bool IsInside(const std::filesystem::path& path, const std::filesystem::path& folder) {
    return std::mismatch(folder.begin(), folder.end(), path.begin(), path.end()).first == folder.end();
}

std::filesystem::path ResolveInputPath(const std::filesystem::path& caseDir, std::string_view name,
                                       bool allowOutside, const std::string& where) {
    if (name.empty()) throw IoError(StrCat(where, ": \"file\" is empty"));
    if (name.find('\0') != std::string_view::npos)
        throw IoError(StrCat(where, ": file name ", Quoted(name), " holds a NUL byte"));
    const std::filesystem::path relative(name);
    if (relative.is_absolute() && !allowOutside) {
        throw IoError(
            StrCat(where, ": file name ", Quoted(name),
                   " is absolute; input files must be inside the case file's folder (--allow-outside "
                   "lifts this)"));
    }
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::canonical(caseDir / relative, error);
    if (error) {
        throw IoError(StrCat(where, ": ", Printable((caseDir / relative).string(), 300),
                             ": cannot open (no such file)"));
    }
    if (allowOutside) return resolved;
    const std::filesystem::path folder = std::filesystem::canonical(caseDir, error);
    if (error || !IsInside(resolved, folder)) {
        throw IoError(StrCat(where, ": file name ", Quoted(name), " resolves to ",
                             Printable(resolved.string(), 300), ", outside the case file's folder ",
                             Printable(folder.string(), 300), " (--allow-outside lifts this)"));
    }
    return resolved;
}

void CheckOutputName(std::string_view name, const std::string& where) {
    constexpr size_t kMaxName = 255;
    const bool plain = !name.empty() && name.size() <= kMaxName && name != "." && name != ".." &&
                       name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
    if (!plain) {
        throw IoError(StrCat(where, ": output file ", Quoted(name),
                             " must be a plain file name (no folder, no NUL byte, not . or .., at most ",
                             kMaxName, " bytes); outputs are written to the output folder (--out)"));
    }
}

}  // namespace atbx::io
