#pragma once
// Spreading a sweep (`ptxgen run`, `ptxgen fuzz`) over hosts and over GPUs.
//
// Hosts: `--shard INDEX/COUNT` runs the items i (specs of the sorted list, or
// seeds by their index) with i % COUNT == INDEX, so COUNT jobs with INDEX 0..COUNT-1
// cover the whole set once. Test runners ask for the same through the environment
// (the protocol of Bazel, also used by other CI runners): TEST_TOTAL_SHARDS and
// TEST_SHARD_INDEX give the shard, the test touches TEST_SHARD_STATUS_FILE to say
// that it shards, and XML_OUTPUT_FILE is where the runner wants JUnit XML.
//
// GPUs: `--devices all|0,2,...` gives one isolated runner per device; hand_out
// gives the cases to one thread per device, one at a time from a shared queue,
// so a faster device takes more of them.
//
// Both commands parse and resolve these with resolve_distribution, so the
// rules (and their errors) are the same everywhere.

#include "emitter/support/result.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

/// One part of a sweep split COUNT ways; {0, 1} is the whole.
struct Shard {
  unsigned index = 0;
  unsigned count = 1;
  bool operator==(const Shard&) const = default;
};

/// True when item `i` (of the sorted spec list, or the seed index) is this shard's.
bool contains(Shard s, std::size_t i);
/// True when the sweep is split (count > 1).
bool sharded(Shard s);
/// "INDEX/COUNT", as written on the command line: "1/4".
std::string str(Shard s);

/// Parses "INDEX/COUNT" (decimal, 0 <= INDEX < COUNT); a failure says why.
Fallible<Shard> parse_shard(std::string_view text);

/// --devices: every device the driver lists, or these ordinals.
struct DeviceChoice {
  bool all = false;
  std::vector<int> ordinals; ///< in the order given; empty when `all`
};

/// Parses "all" or a comma-separated list of distinct ordinals ("0,2").
Fallible<DeviceChoice> parse_devices(std::string_view text);

/// The value of an environment variable, nullopt when unset. Tests pass a map.
using Environment = std::function<std::optional<std::string>(const char* name)>;
/// The process's own environment (std::getenv).
Environment process_environment();

/// The environment variables of the test runners' sharding protocol.
inline constexpr const char* shard_index_variable = "TEST_SHARD_INDEX";
inline constexpr const char* total_shards_variable = "TEST_TOTAL_SHARDS";
inline constexpr const char* shard_status_variable = "TEST_SHARD_STATUS_FILE";
inline constexpr const char* junit_output_variable = "XML_OUTPUT_FILE";
/// A Slurm job array (`sbatch --array=MIN-MAX[:STEP]`): task ID, the first ID, the step and
/// the number of tasks. The shard is ((ID - MIN) / STEP) / COUNT.
inline constexpr const char* slurm_task_id_variable = "SLURM_ARRAY_TASK_ID";
inline constexpr const char* slurm_task_min_variable = "SLURM_ARRAY_TASK_MIN";
inline constexpr const char* slurm_task_step_variable = "SLURM_ARRAY_TASK_STEP";
inline constexpr const char* slurm_task_count_variable = "SLURM_ARRAY_TASK_COUNT";
/// A Kubernetes Indexed Job: the pod's completion index. Kubernetes does not tell the pod the
/// Job's `completions`, so the count comes from `--shard-count`.
inline constexpr const char* k8s_index_variable = "JOB_COMPLETION_INDEX";

/// What --shard, --devices and the environment ask of a sweep.
struct Distribution {
  Shard shard;
  /// --devices; nullopt when not given (then --device, or device 0, alone).
  std::optional<DeviceChoice> devices;
  /// Where JUnit XML goes when the command is given no report of its own:
  /// XML_OUTPUT_FILE, or "" when unset.
  std::string junit_output;
};

/// Why resolve_distribution failed: the command line's fault (exit 2) or the
/// machine's (TEST_SHARD_STATUS_FILE could not be touched: exit 3).
struct DistributionError {
  enum class Kind : std::uint8_t { usage, environment };
  Kind kind = Kind::usage;
  std::string message;
};

/// The command-line flags of a sweep's distribution ("" when not given).
struct DistributionFlags {
  std::string shard;       ///< --shard INDEX/COUNT
  std::string shard_count; ///< --shard-count COUNT: the index comes from the scheduler
  std::string devices;     ///< --devices all|0,2,...
};

/// Resolves `--shard` against the environment's shard, which one of these gives (two that
/// are set must agree): the test runners' TEST_SHARD_INDEX/TEST_TOTAL_SHARDS (both or
/// neither), a Slurm array task (SLURM_ARRAY_TASK_ID relative to SLURM_ARRAY_TASK_MIN and
/// _STEP, of SLURM_ARRAY_TASK_COUNT, or of `--shard-count`), or a Kubernetes Indexed Job
/// (JOB_COMPLETION_INDEX of `--shard-count`). The flag wins when no environment asks; a flag
/// that differs from the environment is a usage error, and so is `--shard-count` with no
/// scheduler's index. Parses `--devices`, reads XML_OUTPUT_FILE, and touches
/// TEST_SHARD_STATUS_FILE when it is set (the runner's check that the test shards). Nullopt
/// with `error` on failure.
std::optional<Distribution> resolve_distribution(const DistributionFlags& flags,
                                                 const Environment& env, DistributionError& error);

/// The next item of a shared queue, nullopt when none is left; thread-safe.
using NextItem = std::function<std::optional<std::size_t>()>;
/// One worker (a device's thread): takes items from `next` until it is empty.
using RunWorker = std::function<void(std::size_t worker, const NextItem& next)>;

/// Hands items [0, count) out, in order, one at a time, to `workers` workers
/// that share one queue: each takes the next item when it is ready for one, so a
/// faster device takes more and every item goes to exactly one worker. Each
/// worker runs `run` once, on a thread of its own; with one worker, on this
/// thread (a single device runs as it always did). An exception from `run`
/// empties the queue for the others and is rethrown here once all have ended.
void hand_out(std::size_t count, std::size_t workers, const RunWorker& run);

} // namespace ptxgen::driver
