#pragma once
// `ptxgen lint`'s parts (internal to driver/lint; lint.hpp is the interface):
//   lint.cpp     a file's kernels, read once by the simulator's reader; --arg names checked
//   params.cpp   --arg, and what each parameter gets (value, region, or refused)
//   lint_kernel.cpp  one kernel's runs over the simulator and its findings
//   report.cpp   the text, JSON and SARIF reports
//   save_run.cpp --save-run: a run's launch and memory, for a GPU run of the same launch

#include "driver/lint/lint.hpp"
#include "driver/sim/ir.hpp"

#include <cstdint>
#include <deque>
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
  /// The element type the --arg names (`f16[...]`), for Options::value_fill; none for memory
  /// no --arg describes.
  std::optional<tile::DType> dtype;
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

/// The plan for each parameter of `e` into `plans` (an --arg that names none of them is
/// skipped); a failure for the first --arg that does not fit its parameter, else one naming
/// the parameters the entry loads that nothing gave a value. `plans` holds every plan made
/// either way (the report shows them).
Status plan_params(const sim::ir::Entry& e, const std::vector<ArgValue>& args,
                   std::vector<ParamPlan>& plans);
/// Why `e` cannot run with these plans (`unsupported`): an array parameter no --arg describes
/// (a tensor map needs its description: the message gives the --arg syntax); nullopt if none.
std::optional<std::string> undescribed_arrays(const sim::ir::Entry& e,
                                              const std::vector<ParamPlan>& plans);

/// Bytes from a seeded generator (splitmix64): the same seed, the same bytes.
void fill_random(std::vector<std::uint8_t>& bytes, std::uint64_t seed);
/// With a floating-point `dtype` (f16, bf16, f32, f64): elements k / 2^s from the same
/// generator, k uniform in [-2^s, 2^s) and s the type's mantissa bits (10, 7, 23, 52), so
/// every element is exact and in [-1, 1); other types get fill_random's bytes.
void fill_values(std::vector<std::uint8_t>& bytes, tile::DType dtype, std::uint64_t seed);

/// One region of global memory of a run.
struct Region {
  std::uint64_t base = 0;
  std::string name;      ///< the parameter's, or with what of it: "A+8", "A (its map)"
  std::size_t param = 0; ///< the parameter it belongs to
  bool grows = false;    ///< a pointer parameter's default region (ParamPlan::Kind::region)
};

/// Where a run's memory holds the address of a region or a tensor map: what a GPU run of the
/// same launch must put there instead of the simulator's (save_run).
struct Link {
  enum class In : std::uint8_t { param, region } in = In::param;
  std::size_t index = 0; ///< the parameter, or the region, that holds it
  std::uint64_t at = 0;  ///< its first byte there
  enum class To : std::uint8_t { region, map } to = To::region;
  std::size_t target = 0; ///< the region (its 8-byte address) or the map (its 128 bytes)
};

/// The global memory of one run: a region at region_base(k) for each parameter k that points to
/// memory, then one for each further piece of memory its --arg gives (a map's tensor, a struct's
/// fields), numbered on from plans.size().
struct Memory {
  std::deque<std::vector<std::uint8_t>> bytes; ///< per region (a deque: buffers point into it)
  std::vector<Region> regions;
  std::vector<sim::GlobalBuffer> buffers;
  std::vector<Link> links;
};

/// Options::save_run: writes into `folder` the plan of the launch (`plan.txt`: the grid, the
/// parameters' bytes, the regions, the maps and the links between them), each region's bytes
/// before the run (`in.K.bin`) and after it (`sim.K.bin`), for tools/wild_device/run.cu.
/// `inputs` and `outputs` are the same run's memory built anew and as the run left it.
Status save_run(const std::string& folder, const sim::ir::Entry& e, const sim::Launch& launch,
                const Memory& inputs, const Memory& outputs, const sim::SimResult& result);

/// Lints one entry (or .func run as one) of `program`.
KernelReport lint_kernel(const sim::Program& program, const std::string& entry,
                         const Options& options);

} // namespace ptxgen::lint::detail
