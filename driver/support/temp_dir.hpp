#pragma once
// A private temporary directory (mkdtemp, mode 0700), removed with everything
// in it when the owning object is destroyed.

#include "emitter/support/result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::driver {

class TempDir {
public:
  /// Creates `<$TMPDIR or /tmp>/<prefix>XXXXXX`; a failure's message names the
  /// directory and the system error.
  static Fallible<TempDir> create(std::string_view prefix);
  /// Creates `<parent>/<prefix>XXXXXX`.
  static Fallible<TempDir> create_in(const std::filesystem::path& parent, std::string_view prefix);
  /// The directory the system default says temporaries go in: $TMPDIR when
  /// set and non-empty, otherwise /tmp.
  static std::filesystem::path default_parent();

  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::filesystem::path& path() const { return path_; }
  /// Removes the directory now; fails when it could not.
  Status remove();

private:
  explicit TempDir(std::filesystem::path p) : path_(std::move(p)) {}
  std::filesystem::path path_; ///< empty once removed or moved from
};

} // namespace ptxgen::driver
