// Writing a run's outputs all or nothing. Each output is first written whole to a temporary file with a
// unique name in the output folder (so two runs into one folder never collide); only when every output is
// written are they renamed over their targets, and on any failure every temporary file is removed.
#ifndef ATBX_IO_OUTPUT_FILES_H
#define ATBX_IO_OUTPUT_FILES_H

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "io/case_file.h"

namespace atbx::io {

// Writes outputs[i] as a .npy file named names[i] (plain file names, paths.h) in `dir`, creating `dir`. A
// target that exists must be a regular file (not a symlink, a folder or a device). Throws IoError.
void WriteOutputs(std::span<const std::string> names, const std::vector<HostTensor>& outputs,
                  const std::filesystem::path& dir);

}  // namespace atbx::io

#endif  // ATBX_IO_OUTPUT_FILES_H
