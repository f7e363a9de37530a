#pragma once
// Output files are written atomically: a temporary file beside the target,
// flushed, then renamed over it. A failure leaves the old file untouched.

#include <filesystem>
#include <string>
#include <string_view>

namespace ptxgen::driver {

/// Writes `contents` to `path` atomically. On failure returns false and sets
/// `error` to a message naming the path and the system error; the previous
/// file at `path` (if any) is left as it was and no temporary stays behind.
bool write_file_atomically(const std::filesystem::path& path, std::string_view contents,
                           std::string& error);

/// Reads a whole file. On failure returns false and sets `error` (a directory
/// given as a file, a missing file, an unreadable one).
bool read_file(const std::filesystem::path& path, std::string& contents, std::string& error);

} // namespace ptxgen::driver
