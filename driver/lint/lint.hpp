#pragma once
// `ptxgen lint`: runs the entries of a PTX file on the simulator with no spec and reports the
// hazards it meets (docs/lint.md).
//
// The launch comes from the options, else the entry's `.reqntid` / `.maxntid` and a small
// default grid. Parameters: `--arg NAME=VALUE` (by PTX name or index) sets a scalar, `--arg
// NAME=TYPE[D0,D1,...]` gives a pointer exactly that many elements (with `:box[...]` a tensor
// map, `@` before it a pointer to one), `NAME=TYPE{V0,...}` and `NAME+OFFSET=...` the bytes of
// a struct passed by value, field by field; any other 8-byte parameter
// is a pointer to a region of seeded random bytes that grows (up to a bound) when the kernel
// reaches past it, and a narrower parameter without --arg is unset: an entry that loads it is
// refused with its name (its value could steer loops and branches; no default is safe).
//
// Every run goes through a sim::Observer, so a race does not stop it: each race is recorded
// once per (kind, PTX line, other PTX line); the first other fault ends the run and is a
// finding too. With --seeds N the kernel runs N times, each with other input bytes and another
// order of its threads (and so of the completion of their copies, which land at their
// thread's wait). A read of shared bytes never written is a finding when the output depends on
// it: the first run is repeated with another shared-memory fill and the outputs compared.

#include "driver/sim/simulator.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::lint {

/// One `--arg NAME=VALUE`.
struct ArgValue {
  std::string name;                    ///< the parameter's PTX name, or its index as text
  std::optional<std::uint64_t> scalar; ///< NAME=VALUE
  std::string dtype;                   ///< NAME=TYPE[...]: "f32", "u8", ...
  std::vector<std::uint64_t> shape;    ///< its extents
  std::uint64_t bytes = 0;             ///< the region's size: elements times element size
  /// NAME=TYPE[D0,...]:box[B0,...][:swizzle=32B|64B|128B][:fill=nan]: a tensor map (a
  /// CUtensorMap parameter) of a dense row-major tensor of that shape, whose elements are the
  /// region's random bytes.
  std::optional<tile::TensorMapDesc> map;
  /// NAME=@TYPE[D0,...]:box[B0,...]...: the parameter is a pointer to such a tensor map (a
  /// `const CUtensorMap*` whose 128 bytes lie in global memory).
  bool indirect = false;
  /// NAME=TYPE{V0,V1,...}: these values of an integer type (bN, uN, sN) or of f32 / f64,
  /// packed little endian: a struct passed by value, field by field.
  std::vector<std::uint8_t> raw;
  /// NAME+OFFSET=...: the bytes of the value (its values, or the 8-byte address of its memory,
  /// or a tensor map's 128 bytes) start at this byte of an array parameter (a field of a struct
  /// passed by value); several --arg may fill one parameter.
  std::optional<std::uint64_t> offset;
};

/// Parses `NAME=VALUE` (decimal or 0x hex, a leading '-' allowed), `NAME=TYPE[D0,...]`, a
/// tensor map `NAME=TYPE[D0,...]:box[B0,...]:...`, a pointer to one `NAME=@TYPE[...]:box[...]`,
/// or values `NAME=TYPE{V0,...}`; NAME may end in `+OFFSET` (a byte of an array parameter);
/// a failure saying what is wrong when it is none.
Fallible<ArgValue> parse_arg(std::string_view text);
/// The memory or bytes of parameter `name`: `TYPE[D0,...]`, a tensor map
/// `TYPE[D0,...]:box[B0,...]:...`, `@` and a map, or `TYPE{V0,...}` (what follows `=` in
/// parse_arg); a failure saying what is wrong when it is none.
Fallible<ArgValue> memory_arg(std::string name, std::string_view value);
/// The scalar `value` for parameter `name`.
ArgValue scalar_arg(std::string name, std::uint64_t value);

struct Options {
  std::optional<std::string> entry; ///< only this entry (or .func)
  std::optional<sim::Dim3> grid;
  std::optional<sim::Dim3> block;
  /// CTAs per cluster (`--cluster`); none: the entry's `.reqnctapercluster`, else 1,1,1. Without
  /// --grid a cluster of several CTAs is also the grid (one cluster).
  std::optional<sim::Dim3> cluster;
  std::uint32_t dynamic_smem = 0;
  /// `--ctas N`: run only the first N CTAs of the grid (sim::Launch::run_ctas); 0: all.
  std::uint64_t ctas = 0;
  std::vector<ArgValue> args;
  std::string arch; ///< sm_XX; empty: the file's .target
  unsigned seeds = 1;
  /// `--fill TYPE` (f16, bf16, f32, f64): random values in [-1, 1) instead of random bytes, so
  /// that a GEMM of them stays finite (detail::fill_values): of its own type in memory an --arg
  /// types (`f16[...]`, a map's bf16 tensor; an integer type keeps random bytes), of TYPE in
  /// the pointer regions no --arg describes. None (`--fill bytes`): random bytes everywhere.
  std::optional<tile::DType> value_fill;
  /// `--save-run DIR`: the first run's launch, its input memory and the simulator's memory
  /// after it, written into DIR (one kernel only) for a GPU run of the same launch
  /// (tools/wild_device.sh, docs/lint.md "The wild corpus").
  std::string save_run;
};

/// What a finding is, for its rule id and level.
enum class FindingKind : std::uint8_t {
  race,               ///< a race the simulator's tracking found (Finding::race_kind)
  fault,              ///< another simulator fault of the kernel (Finding::fault_kind)
  out_of_bounds,      ///< a global access outside a parameter's region
  uninitialized_read, ///< shared bytes read before any write, and the output depends on them
  unsupported,        ///< a line the simulator does not run: never a hazard
};

struct Finding {
  FindingKind kind = FindingKind::race;
  sim::RaceKind race_kind = sim::RaceKind::read_after_write;
  sim::FaultKind fault_kind = sim::FaultKind::race;
  std::uint32_t line = 0;       ///< the access that found it
  std::uint32_t other_line = 0; ///< the earlier, conflicting access (races); 0 when none
  std::int64_t bid = -1, tid = -1, other_tid = -1;
  std::int64_t other_bid = -1; ///< the earlier access's CTA when another (cross-CTA races)
  std::uint64_t iteration = 0, other_iteration = 0;
  std::string symbol;       ///< the shared array (or buffer / parameter) holding the bytes
  std::uint64_t offset = 0; ///< the first byte's offset within `symbol`
  std::uint64_t hits = 1;   ///< times met over every run (races: per byte and access)
  unsigned seed = 0;        ///< the first run that found it
  std::string message;      ///< the simulator's words (or lint's), one line
};

/// Whether `f` is a note, not a hazard: a line lint cannot run, or two CTAs writing the same
/// values to the same bytes (race.cross-cta-same-value: lint's default grid may launch more
/// CTAs than the kernel is written for, and the result is either write's), or a thread storing
/// to shared bytes the value another thread's unordered store left there
/// (race.write-after-write-same-value: replicated layouts do it on purpose). Notes alone leave
/// a kernel clean (or unsupported).
bool is_note(const Finding& f);

/// "race.read-in-flight", "fault.deadlock", "out-of-bounds", "uninitialized-shared-read",
/// "unsupported": the SARIF rule id.
std::string rule_id(const Finding& f);
/// "read in flight", "deadlock", ...: the kind in words.
std::string kind_text(const Finding& f);

/// What the runs covered: what makes a clean result mean something.
struct Coverage {
  std::uint64_t threads = 0;
  std::uint64_t instructions = 0; ///< over every run
  std::uint64_t async_copies = 0; ///< cp.async, bulk and tensor copies executed (every run)
  std::uint64_t commits = 0;
  std::uint64_t waits = 0;    ///< wait_group / wait_all / bulk waits / mbarrier waits
  std::uint64_t barriers = 0; ///< bar.sync / barrier.sync executed
  std::uint32_t lines = 0;    ///< instruction lines of the entry (and the .funcs it calls)
  std::uint32_t lines_run = 0;
  unsigned runs = 0;
  /// Race meetings past the distinct races a run keeps (sim::Observer::max_races), the most
  /// of any run: nonzero means the findings are not every race the run met.
  std::uint64_t races_unlisted = 0;
};

/// How a parameter was given memory or a value.
struct ParamUse {
  std::string name;
  std::string how;         ///< "scalar 7", "region 65536 bytes (random)", "f32[128,32]", "unused"
  std::uint64_t bytes = 0; ///< a pointer's memory at the end (a region: as grown); else 0
};

enum class KernelStatus : std::uint8_t { clean, findings, unsupported, error, usage };
/// "clean", "findings", "unsupported", "error", "usage": as the reports print it.
std::string_view status_name(KernelStatus s);

struct KernelReport {
  std::string file;
  std::string name;
  bool is_func = false; ///< a `.func` linted as an entry
  sim::Dim3 grid{1, 1, 1}, block{1, 1, 1};
  std::uint32_t dynamic_smem = 0;
  std::vector<ParamUse> params;
  std::vector<Finding> findings;
  Coverage coverage;
  KernelStatus status = KernelStatus::clean;
  std::string error; ///< status error / usage: why it did not run
};

/// A PTX file read once by the simulator's reader, and what lint does with each kernel of it:
/// its entries (or Options::entry, which may name a .func), or, in a file with no entry,
/// each .func it defines, run as an entry (sim::Program::functions).
struct LintFile {
  std::string file;
  sim::Program program; ///< empty when the file does not parse (its one kernel says why)
  struct Kernel {
    std::string name;
    bool is_func = false;
    std::optional<KernelReport> refused; ///< why it does not run; nullopt: it runs
  };
  std::vector<Kernel> kernels; ///< in the order of the text
};

/// Parses `ptx_text` (read from `file`) and picks the kernels to lint.
LintFile read_ptx(std::string_view ptx_text, const std::string& file, const Options& options);

/// Why some --arg names no parameter of any kernel of `files` that lint runs (by name, or an
/// index below its parameter count), if one does not: the parameters there are, for the
/// message. Known before anything runs.
std::optional<std::string> unmatched_args(const std::vector<LintFile>& files,
                                          const Options& options);

/// Runs the kernels of `file`: a report per kernel, in order.
std::vector<KernelReport> lint_file(const LintFile& file, const Options& options);

/// read_ptx, then lint_file; an --arg that names no parameter is one `usage` report and
/// nothing runs.
std::vector<KernelReport> lint_text(std::string_view ptx_text, const std::string& file,
                                    const Options& options);

/// The exit status for these kernels: 2 when one is a usage error, else 1 when one has
/// findings or an error, else 4 when one is unsupported, else 0.
int exit_status(const std::vector<KernelReport>& kernels);

/// The human report (stdout), the JSON report, the SARIF 2.1.0 log.
std::string text_report(const std::vector<KernelReport>& kernels);
std::string json_report(const std::vector<KernelReport>& kernels, std::string_view version);
std::string sarif_report(const std::vector<KernelReport>& kernels, std::string_view version);

} // namespace ptxgen::lint
