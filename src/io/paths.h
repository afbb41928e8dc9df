// Where the files a case file names may be. A case file may come from someone else, so the names in it are
// confined to folders the user chose: inputs to the case file's folder, outputs to the output folder.
#ifndef ATBX_IO_PATHS_H
#define ATBX_IO_PATHS_H

#include <filesystem>
#include <string>
#include <string_view>

namespace atbx::io {

// The input file `name` relative to `caseDir`, with every symlink resolved. Throws IoError when the name is
// empty or holds a NUL byte, when the file does not exist, and (unless `allowOutside`) when the name is
// absolute or the resolved file lies outside `caseDir`. `where` labels messages ("inputs[2]").
std::filesystem::path ResolveInputPath(const std::filesystem::path& caseDir, std::string_view name,
                                       bool allowOutside, const std::string& where);

// Throws IoError unless `name` is a plain file name: not empty, at most 255 bytes, no '/', no NUL, not "." or
// "..". Outputs are created directly in the output folder.
void CheckOutputName(std::string_view name, const std::string& where);

// True when `path` is `folder` or lies under it (both already resolved).
bool IsInside(const std::filesystem::path& path, const std::filesystem::path& folder);

}  // namespace atbx::io

#endif  // ATBX_IO_PATHS_H
