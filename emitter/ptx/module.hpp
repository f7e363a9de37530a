#pragma once
// A PTX module: `.version`, `.target`, `.address_size` and kernel entries.

#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/register.hpp"
#include "emitter/ptx/target.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::ptx {

/// `.param .u64 name` in the entry's parameter list, or, with array_bytes, an opaque byte
/// array `.param .align A .b8 name[N]` (a tensor map, as nvcc declares a
/// `const __grid_constant__ CUtensorMap` parameter).
struct Param {
  std::string name;
  ScalarType type = ScalarType::u64;
  std::uint32_t array_bytes = 0; ///< N; 0 for a scalar of `type`
  std::uint32_t array_align = 0; ///< A, with array_bytes
};

/// How a shared array is declared.
enum class SharedKind : std::uint8_t {
  fixed,   ///< `.shared .align A .b8 name[bytes];` static, sized by ptxas (at most 48 KiB)
  dynamic, ///< `.extern .shared .align A .b8 name[];` sized at launch (sharedMemBytes);
           ///< printed at module scope just before its entry (ptxas refuses it inside)
};

/// A shared array inside the entry.
struct SharedArray {
  std::string name;
  std::uint32_t align = 128;
  std::uint64_t bytes = 0; ///< fixed only; a dynamic array has no size
  SharedKind kind = SharedKind::fixed;
};

struct Entry {
  std::string name;
  std::vector<Param> params;
  std::vector<SharedArray> shared;
  /// `.reqntid x, y, z` when the block's shape is known (printed `.reqntid x` when y = z = 1):
  /// a launch of another shape fails, so a 3-D block must state all three.
  std::optional<std::array<std::uint32_t, 3>> reqntid;
  /// `.minnctapersm N`: ptxas keeps the registers low enough for N CTAs per SM.
  std::optional<std::uint32_t> minnctapersm;
  /// `.reqnctapercluster x, y, z` (sm_90): the cluster every launch of the entry has.
  std::optional<std::array<std::uint32_t, 3>> reqnctapercluster;
  RegisterFile registers; ///< declarations are printed from its counts
  std::vector<Instruction> body;
};

struct Module {
  std::vector<std::string> header_comments; ///< printed as `// ...` lines before `.version`
  /// Explicit `.version`; when absent the printer uses the lowest that the
  /// target and every feature used allow (see required_version()).
  std::optional<PtxVersion> version;
  Target target;
  std::uint32_t address_size = 64;
  std::vector<Entry> entries;
};

} // namespace ptxgen::ptx
