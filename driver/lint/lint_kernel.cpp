// `ptxgen lint`: one kernel's runs over the simulator and its findings (detail.hpp).

#include "driver/lint/detail.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <set>

namespace ptxgen::lint::detail {

namespace {

using sim::FaultKind;
using sim::ir::Code;

/// A run of a lint stops here: a kernel of the sizes lint is for runs far fewer.
constexpr std::uint64_t lint_max_instructions = 20'000'000;
/// The grid when --grid is not given: two CTAs, so that a kernel's CTA index matters once.
constexpr sim::Dim3 default_grid = {2, 1, 1};
/// The block when neither --block nor .reqntid / .maxntid says.
constexpr sim::Dim3 default_block = {128, 1, 1};
/// Dynamic shared memory of an entry with an `.extern .shared` array when --dynamic-smem is
/// not given: what every target allows without opting in.
constexpr std::uint32_t default_dynamic_smem = 48 * 1024;
/// The shared fill of the run that checks whether an unwritten read reaches the output.
constexpr std::uint8_t second_fill = 0x5A;

/// The global memory of one run: a region per pointer parameter.
struct Memory {
  std::vector<std::vector<std::uint8_t>> bytes; ///< per parameter (empty: no region)
  std::vector<sim::GlobalBuffer> buffers;
};

Memory make_memory(const sim::ir::Entry& e, const std::vector<ParamPlan>& plans, std::uint64_t seed,
                   sim::Launch& launch) {
  Memory m;
  m.bytes.resize(plans.size());
  launch.params.assign(plans.size(), 0);
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const ParamPlan& p = plans[k];
    if (p.kind == ParamPlan::Kind::scalar)
      launch.params[k] = p.value;
    if (p.kind != ParamPlan::Kind::region && p.kind != ParamPlan::Kind::sized)
      continue;
    m.bytes[k].resize(p.bytes);
    fill_random(m.bytes[k], seed * 0x10001 + k);
    launch.params[k] = region_base(k);
    m.buffers.push_back(sim::GlobalBuffer{region_base(k), &m.bytes[k], e.params[k].name});
    if (p.map)
      launch.tensor_maps.push_back(sim::TensorMapArg{k, *p.map, region_base(k)});
  }
  return m;
}

/// The parameter whose region an address belongs to (the nearest region start), if any.
std::optional<std::size_t> region_of(std::uint64_t address, const std::vector<ParamPlan>& plans) {
  const std::uint64_t first = region_base(0) - region_stride / 2;
  if (address < first)
    return std::nullopt;
  const std::size_t k = (address - first) / region_stride;
  if (k >= plans.size() ||
      (plans[k].kind != ParamPlan::Kind::region && plans[k].kind != ParamPlan::Kind::sized))
    return std::nullopt;
  return k;
}

struct Run {
  sim::SimResult result;
  std::unique_ptr<sim::Observer> observer = std::make_unique<sim::Observer>();
  Memory memory;
};

/// One run with `seed`'s inputs and thread order; a region too small for an access within
/// its bound grows (to a power of two) and the run starts again.
Run run_seed(const sim::Program& program, const sim::ir::Entry& e, sim::Launch launch,
             std::vector<ParamPlan>& plans, unsigned seed, std::uint8_t fill) {
  while (true) {
    Run r;
    r.memory = make_memory(e, plans, seed, launch);
    launch.observer = r.observer.get();
    launch.schedule_seed = seed;
    launch.shared_fill = fill;
    launch.workers = 1;
    launch.max_instructions = lint_max_instructions;
    launch.run_to_unsupported = true;
    r.result = sim::run(program, e.name, launch, r.memory.buffers);
    const auto& f = r.result.fault;
    if (!f || f->kind != FaultKind::illegal_address || !f->address)
      return r;
    const auto k = region_of(*f->address, plans);
    if (!k || plans[*k].kind != ParamPlan::Kind::region || *f->address < region_base(*k))
      return r;
    // The access starts at the address; its size is not known here (a bulk copy's may be
    // large), so the region at least doubles each time, up to the bound.
    const std::uint64_t need = *f->address - region_base(*k) + 64;
    if (need > region_max_bytes || plans[*k].bytes >= region_max_bytes)
      return r;
    plans[*k].bytes =
        std::min(region_max_bytes, std::max(std::bit_ceil(need), 2 * plans[*k].bytes));
  }
}

Finding race_finding(const sim::Fault& f, std::uint64_t hits, unsigned seed) {
  Finding x;
  x.kind = FindingKind::race;
  x.race_kind = f.race->kind;
  x.line = f.race->access.ptx_line;
  x.other_line = f.race->other.ptx_line;
  x.bid = f.bid;
  x.tid = f.race->access.tid;
  x.other_tid = f.race->other.tid;
  x.other_bid = f.race->other.bid;
  x.iteration = f.race->access.iteration;
  x.other_iteration = f.race->other.iteration;
  x.symbol = f.race->symbol;
  x.offset = f.race->offset;
  x.hits = hits;
  x.seed = seed;
  x.message = f.message;
  return x;
}

/// The finding for a run's fatal fault of the kernel (not unsupported, not the caller's).
Finding fault_finding(const sim::Fault& f, const sim::ir::Entry& e,
                      const std::vector<ParamPlan>& plans, unsigned seed) {
  Finding x;
  x.kind = FindingKind::fault;
  x.fault_kind = f.kind;
  x.line = f.ptx_line;
  x.bid = f.bid;
  x.tid = f.tid;
  x.seed = seed;
  x.message = f.message;
  if (f.kind == FaultKind::instruction_limit)
    x.message += "; lint stops a run after " + std::to_string(lint_max_instructions) +
                 " instructions: give smaller --arg values (sizes, trip counts)";
  const auto k = f.address ? region_of(*f.address, plans) : std::nullopt;
  if (k) {
    const std::uint64_t base = region_base(*k);
    x.symbol = e.params[*k].name;
    x.offset = *f.address - base; // wraps for an access below the region: printed signed
    if (f.kind == FaultKind::illegal_address) {
      x.kind = FindingKind::out_of_bounds;
      const auto off = static_cast<std::int64_t>(*f.address - base);
      x.message += " (parameter `" + x.symbol + "`: offset " + std::to_string(off) + " of its " +
                   std::to_string(plans[*k].bytes) + " bytes" +
                   (plans[*k].kind == ParamPlan::Kind::region
                        ? ", a region lint grows up to " + std::to_string(region_max_bytes)
                        : std::string()) +
                   ")";
    }
  }
  return x;
}

/// The key two findings are the same hazard by: kind and PTX lines.
auto finding_key(const Finding& f) {
  return std::make_tuple(f.kind, f.kind == FindingKind::race ? static_cast<int>(f.race_kind) : 0,
                         f.kind == FindingKind::fault ? static_cast<int>(f.fault_kind) : 0, f.line,
                         f.other_line);
}

void add_finding(std::vector<Finding>& into, Finding f) {
  for (Finding& g : into) {
    if (finding_key(g) == finding_key(f)) {
      g.hits += f.hits;
      return;
    }
  }
  into.push_back(std::move(f));
}

void count_coverage(const sim::ir::Entry& e, const Run& r, Coverage& c,
                    std::vector<bool>& line_run) {
  c.instructions += r.result.instructions_executed;
  ++c.runs;
  const auto& executed = r.observer->executed;
  for (std::size_t k = 0; k < executed.size() && k < e.ops.size(); ++k) {
    const std::uint64_t n = executed[k];
    if (n > 0 && e.ops[k].line < line_run.size())
      line_run[e.ops[k].line] = true;
    switch (e.ops[k].code) {
    case Code::cp_async:
    case Code::bulk_copy:
    case Code::bulk_store:
    case Code::tensor_load:
    case Code::tensor_store:
    case Code::bulk_peer:
      c.async_copies += n;
      break;
    case Code::commit_group:
    case Code::bulk_commit:
    case Code::cp_mbar_arrive:
      c.commits += n;
      break;
    case Code::wait_group:
    case Code::wait_all:
    case Code::bulk_wait:
    case Code::mbar_wait:
    case Code::mbar_wait_parity:
      c.waits += n;
      break;
    case Code::bar:
    case Code::bar_arrive:
    case Code::bar_red:
    case Code::cluster_wait:
      c.barriers += n;
      break;
    default:
      break;
    }
  }
}

/// What is left of the plans for the report.
void describe_params(const sim::ir::Entry& e, const std::vector<ParamPlan>& plans,
                     KernelReport& r) {
  for (std::size_t k = 0; k < plans.size(); ++k) {
    std::string how = plans[k].how;
    if (plans[k].kind == ParamPlan::Kind::region)
      how = "pointer: region of " + std::to_string(plans[k].bytes) + " random bytes";
    const bool memory =
        plans[k].kind == ParamPlan::Kind::region || plans[k].kind == ParamPlan::Kind::sized;
    r.params.push_back({e.params[k].name, how, memory ? plans[k].bytes : 0});
  }
}

/// A seed's run into the report; whether the kernel could run at all (else r.status says why).
bool record_run(const sim::Program& program, const sim::ir::Entry& e, const Run& run,
                const std::vector<ParamPlan>& plans, unsigned seed, KernelReport& r) {
  const sim::Observer& o = *run.observer;
  for (std::size_t i = 0; i < o.races.size(); ++i)
    add_finding(r.findings, race_finding(o.races[i], o.race_hits[i], seed));
  if (!run.result.fault)
    return true;
  const sim::Fault& f = *run.result.fault;
  switch (sim::origin(f.kind)) {
  case sim::FaultOrigin::kernel:
    add_finding(r.findings, fault_finding(f, e, plans, seed));
    return true;
  case sim::FaultOrigin::simulator:
    if (f.kind == FaultKind::instruction_limit) {
      add_finding(r.findings, fault_finding(f, e, plans, seed));
      return true;
    }
    // The line the run reached (or, for an entry the simulator refuses whole, the problems
    // of its functions); lines no thread reaches are no finding.
    for (const auto& u : program.unsupported(e.name)) {
      if (e.problems.empty() && u.line != f.ptx_line)
        continue;
      Finding x;
      x.kind = FindingKind::unsupported;
      x.line = u.line;
      x.seed = seed;
      x.message = "`" + u.text + "`: " + u.reason;
      add_finding(r.findings, std::move(x));
    }
    if (r.findings.empty()) { // an unsupported launch: no line to name
      Finding x;
      x.kind = FindingKind::unsupported;
      x.line = f.ptx_line;
      x.message = f.message;
      add_finding(r.findings, std::move(x));
    }
    return false;
  case sim::FaultOrigin::caller:
    r.status = f.kind == FaultKind::invalid_launch ? KernelStatus::usage : KernelStatus::error;
    r.error = std::string(sim::name(f.kind)) + ": " + f.message;
    return false;
  }
  return false;
}

/// With the first run's reads of never-written shared bytes: the same run with another fill;
/// each such read is a finding when the outputs differ.
void check_unwritten(const sim::Program& program, const sim::ir::Entry& e,
                     const sim::Launch& launch, std::vector<ParamPlan>& plans, const Run& first,
                     KernelReport& r, std::vector<bool>& line_run) {
  const auto& reads = first.observer->unwritten_reads;
  if (reads.empty() || first.result.fault)
    return;
  const Run again = run_seed(program, e, launch, plans, 0, second_fill);
  count_coverage(e, again, r.coverage, line_run);
  if (again.memory.bytes == first.memory.bytes && !again.result.fault)
    return;
  for (const sim::UnwrittenRead& u : reads) {
    Finding x;
    x.kind = FindingKind::uninitialized_read;
    x.line = u.ptx_line;
    x.bid = u.bid;
    x.tid = u.tid;
    x.iteration = u.iteration;
    x.symbol = u.symbol;
    x.offset = u.offset;
    x.message = "thread " + std::to_string(u.tid) + " (CTA " + std::to_string(u.bid) +
                "), iteration " + std::to_string(u.iteration) + ": byte " +
                std::to_string(u.offset) + " of shared `" + u.symbol +
                "` is read before any write, and the kernel's output changes with the bytes "
                "shared memory starts with";
    add_finding(r.findings, std::move(x));
  }
}

sim::Launch launch_for(const sim::ir::Entry& e, const Options& o) {
  sim::Launch l;
  l.cluster_dim = o.cluster;
  const sim::Dim3 cluster =
      o.cluster ? *o.cluster : e.reqnctapercluster.value_or(sim::Dim3{1, 1, 1});
  const bool clustered = cluster[0] * cluster[1] * cluster[2] > 1;
  l.grid_dim = o.grid.value_or(clustered ? cluster : default_grid);
  if (o.block)
    l.block_dim = *o.block;
  else if (e.reqntid)
    l.block_dim = *e.reqntid;
  else
    l.block_dim = e.maxntid.value_or(default_block);
  l.dynamic_shared_bytes = o.dynamic_smem;
  if (e.has_extern_shared && o.dynamic_smem == 0)
    l.dynamic_shared_bytes = default_dynamic_smem;
  return l;
}

} // namespace

KernelReport lint_kernel(const sim::Program& program, const std::string& entry,
                         const Options& options) {
  KernelReport r;
  r.name = entry;
  const sim::ir::Entry& e = *program.find(entry);
  const sim::Launch launch = launch_for(e, options);
  r.grid = launch.grid_dim;
  r.block = launch.block_dim;
  r.dynamic_smem = launch.dynamic_shared_bytes;
  r.coverage.threads = launch.grid_total() * launch.block_total();
  std::vector<ParamPlan> plans = plan_params(e, options.args, r.error);
  if (!r.error.empty()) {
    r.status = KernelStatus::usage;
    describe_params(e, plans, r);
    return r;
  }
  if (auto why = undescribed_arrays(e, plans)) {
    Finding x;
    x.kind = FindingKind::unsupported;
    x.line = e.line;
    x.message = std::move(*why);
    r.findings.push_back(std::move(x));
    r.status = KernelStatus::unsupported;
    describe_params(e, plans, r);
    return r;
  }
  std::uint32_t max_line = 0;
  std::set<std::uint32_t> lines;
  for (const auto& op : e.ops) {
    lines.insert(op.line);
    max_line = std::max(max_line, op.line);
  }
  r.coverage.lines = static_cast<std::uint32_t>(lines.size());
  std::vector<bool> line_run(max_line + 1, false);
  for (unsigned seed = 0; seed < std::max(1u, options.seeds); ++seed) {
    const Run run = run_seed(program, e, launch, plans, seed, sim::poison_byte);
    count_coverage(e, run, r.coverage, line_run);
    if (!record_run(program, e, run, plans, seed, r))
      break;
    if (seed == 0)
      check_unwritten(program, e, launch, plans, run, r, line_run);
  }
  r.coverage.lines_run =
      static_cast<std::uint32_t>(std::count(line_run.begin(), line_run.end(), true));
  describe_params(e, plans, r);
  if (r.status == KernelStatus::clean) {
    const bool unsupported = std::any_of(r.findings.begin(), r.findings.end(), [](const auto& f) {
      return f.kind == FindingKind::unsupported;
    });
    const bool hazards = std::any_of(r.findings.begin(), r.findings.end(),
                                     [](const auto& f) { return !is_note(f); });
    r.status = hazards       ? KernelStatus::findings
               : unsupported ? KernelStatus::unsupported
                             : KernelStatus::clean;
  }
  return r;
}

} // namespace ptxgen::lint::detail
