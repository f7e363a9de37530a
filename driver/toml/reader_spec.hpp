#pragma once
// The spec loader: a TOML spec file (format: docs/spec-format.md) to the kernel IR.
// The keys each table and op takes are listed once, in docs/spec-format.md ("Tables"),
// which a unit test checks against the reader's key lists (driver/toml/reader.hpp).
//
// Tensors and parameters are loaded first (in file order, whatever the table order),
// then ops, so ops may name anything declared anywhere. Every error is a Diagnostic
// with file:line:col, also inside view, expression, opcode and cache-policy strings:
// a single-line string without escapes maps its characters to file columns exactly;
// a multi-line or escaped string reports at its opening quote. Loading goes on
// after an error (next key, next table, next op) so that one run reports all it can;
// diagnostics come back sorted by position.
//
// The reader checks only the TOML: value types, unknown and missing keys, and the
// spelling of enums. Every rule of a kernel (names, sizes, ranges, loops, pipelines,
// operands, expectations) is build::Builder's (emitter/builder/builder.hpp), which the
// reader calls with the file position of each value; the C++ API calls the same one.

#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace ptxgen::driver {

/// Loads a spec file; `path` as given is the file name in diagnostics.
Result<std::unique_ptr<tile::Kernel>> load_spec_file(const std::filesystem::path& path);

/// Loads spec text; `display_name` is the file name in diagnostics and Kernel::file.
Result<std::unique_ptr<tile::Kernel>> load_spec_text(std::string_view text,
                                                     std::string display_name);

} // namespace ptxgen::driver
