#pragma once
// The search behind locate_ptxas(), with every input passed in, so tests can
// exercise each rule without touching the process environment.

#include "driver/ptxas/assembly.hpp"
#include "emitter/support/result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::driver {

/// Where locate_ptxas() looks, as values. An empty string means "not given".
struct PtxasSearch {
  std::string explicit_path; ///< from --ptxas
  std::string env_value;     ///< the value of PTXGEN_PTXAS
  std::string configured;    ///< the toolkit's ptxas found at configure time
  std::string path_variable; ///< the value of PATH
};

/// locate_ptxas() over explicit inputs. An explicit path or environment value
/// that is not an executable regular file is an error naming it; a configured
/// path that is missing is skipped (the binary may run on another machine).
Fallible<PtxasLocation> locate_ptxas_in(const PtxasSearch& search);

/// Succeeds when `path` is a regular file (after symlinks) this process may execute.
/// Otherwise the message says what it is instead ("it does not exist", "it is a directory", ...).
Status is_executable_file(const std::filesystem::path& path);

/// An executable the user names, by an option (--ptxas PATH) or else by an environment
/// variable (PTXGEN_PTXAS=PATH): the path and which of the two named it.
struct NamedExecutable {
  std::string path;
  std::string how; ///< the option's or the variable's name
};

/// The executable named by the option `option` (its value `option_value`) or else by the
/// variable `variable` (`env_value`); nullopt when both are empty. One that names no
/// executable file is an error that quotes it as the user wrote it.
std::optional<Fallible<NamedExecutable>> named_executable(std::string_view option,
                                                          const std::string& option_value,
                                                          std::string_view variable,
                                                          const std::string& env_value);

} // namespace ptxgen::driver
