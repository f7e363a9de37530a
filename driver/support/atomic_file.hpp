#pragma once
// Output files are written atomically: a temporary file beside the target,
// flushed, then renamed over it. A failure leaves the old file untouched. A target that is
// neither a regular file nor a directory (/dev/null, a FIFO) is written in place: renaming
// over it would replace the device with a regular file.

#include "emitter/support/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace ptxgen::driver {

/// Writes `contents` to `path` atomically. A failure's message names the path and
/// the system error; the previous file at `path` (if any) is left as it was and no
/// temporary stays behind.
Status write_file_atomically(const std::filesystem::path& path, std::string_view contents);

/// The out-parameter form, for callers not yet converted (driver/fuzz).
Fallible<std::string> read_file(const std::filesystem::path& path);

} // namespace ptxgen::driver
