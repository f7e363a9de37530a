#pragma once
// `ptxgen lint`'s parts (internal to driver/lint; lint.hpp is the interface):
//   lint.cpp     a file's kernels, read once by the simulator's reader; --arg names checked
//   params.cpp   --arg, and what each parameter gets (value, region, or refused)
//   lint_kernel.cpp  one kernel's runs over the simulator and its findings
//   report.cpp   the text, JSON and SARIF reports

#include "driver/lint/lint.hpp"
#include "driver/sim/ir.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::lint::detail {

/// Memory an --arg gives: a region of `bytes` random bytes, or a tensor map of such a region
/// (`map`), held by the parameter or, `indirect`, by 128 bytes of global memory it points to.
struct ArgMemory {
  std::uint64_t bytes = 0;
  std::optional<tile::TensorMapDesc> map;
  bool indirect = false;
};

/// A field of a struct parameter that holds memory (Kind::fields): its address (8 bytes), or its
/// tensor map's 128 bytes, at `offset`.
struct Field {
  std::uint64_t offset = 0;
  ArgMemory memory;
  std::string what; ///< the --arg's value, for names and the report
};

/// What a parameter gets in a run.
struct ParamPlan {
  enum class Kind : std::uint8_t {
    scalar, ///< `value`
    region, ///< a pointer to random bytes (`bytes` at present) that grows as the kernel reaches
    sized,  ///< `memory` (a pointer to it, its tensor map, or a pointer to its map)
    fields, ///< a struct by value: `raw`, with `fields` holding the addresses of memory
    unset,  ///< a narrow parameter the entry loads that no --arg sets (refused)
    other,  ///< unused, or an array no --arg describes
  } kind = Kind::other;
  std::uint64_t value = 0;       ///< scalar
  std::uint64_t bytes = 0;       ///< region: its current size
  ArgMemory memory;              ///< sized
  std::vector<std::uint8_t> raw; ///< fields: the parameter's bytes (its size), zero where unset
  std::vector<Field> fields;
  std::string how; ///< for the report
};

/// Where the k-th pointer region starts: far apart, so that an access past one region never
/// lands in another.
std::uint64_t region_base(std::size_t k);
inline constexpr std::uint64_t region_stride = 1ull << 36;
/// A lazily grown region's first size and its bound.
inline constexpr std::uint64_t region_initial_bytes = 64 * 1024;
inline constexpr std::uint64_t region_max_bytes = 64ull * 1024 * 1024;

/// The plan for each parameter of `e` (an --arg that names none of them is skipped); an error
/// naming the parameters the entry loads that nothing gave a value.
std::vector<ParamPlan> plan_params(const sim::ir::Entry& e, const std::vector<ArgValue>& args,
                                   std::string& error);
/// Why `e` cannot run with these plans (`unsupported`): an array parameter no --arg describes
/// (a tensor map needs its description: the message gives the --arg syntax); nullopt if none.
std::optional<std::string> undescribed_arrays(const sim::ir::Entry& e,
                                              const std::vector<ParamPlan>& plans);

/// Bytes from a seeded generator (splitmix64): the same seed, the same bytes.
void fill_random(std::vector<std::uint8_t>& bytes, std::uint64_t seed);

/// Lints one entry (or .func run as one) of `program`.
KernelReport lint_kernel(const sim::Program& program, const std::string& entry,
                         const Options& options);

} // namespace ptxgen::lint::detail
