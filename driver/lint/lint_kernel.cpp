// `ptxgen lint`: one kernel's runs over the simulator and its findings (detail.hpp).

#include "driver/lint/detail.hpp"

#include <algorithm>
#include <bit>
#include <deque>
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

/// Builds a run's memory and the launch's parameters and tensor maps from the plans.
class MemoryBuilder {
public:
  MemoryBuilder(const sim::ir::Entry& e, const std::vector<ParamPlan>& plans, std::uint64_t seed,
                std::optional<tile::DType> value_fill, sim::Launch& launch)
      : e_(e), plans_(plans), seed_(seed), value_fill_(value_fill), launch_(launch) {}

  Memory build() {
    // A run started again (a region grown) builds everything anew: no map twice.
    launch_.params.assign(plans_.size(), 0);
    launch_.param_arrays.assign(plans_.size(), {});
    launch_.tensor_maps.clear();
    for (std::size_t k = 0; k < plans_.size(); ++k) {
      const ParamPlan& p = plans_[k];
      switch (p.kind) {
      case ParamPlan::Kind::scalar:
        launch_.params[k] = p.value;
        break;
      case ParamPlan::Kind::region:
        launch_.params[k] = region(k, k, p.bytes, e_.params[k].name, true);
        link(Link::In::param, k, 0, Link::To::region, m_.regions.size() - 1);
        break;
      case ParamPlan::Kind::sized:
        launch_.params[k] = own_memory(k, p.memory);
        break;
      case ParamPlan::Kind::fields:
        launch_.param_arrays[k] = fields(k, p);
        break;
      case ParamPlan::Kind::unset:
      case ParamPlan::Kind::other:
        break;
      }
    }
    return std::move(m_);
  }

private:
  /// A region of `size` random bytes (with value_fill: values of `dtype`, else of the fill's
  /// type) at region_base(slot); its address.
  std::uint64_t region(std::size_t slot, std::size_t param, std::uint64_t size, std::string name,
                       bool grows, std::optional<tile::DType> dtype = std::nullopt) {
    std::vector<std::uint8_t>& bytes = m_.bytes.emplace_back(size);
    if (value_fill_)
      fill_values(bytes, dtype.value_or(*value_fill_), seed_ * 0x10001 + slot);
    else
      fill_random(bytes, seed_ * 0x10001 + slot);
    const std::uint64_t base = region_base(slot);
    m_.regions.push_back(Region{base, name, param, grows});
    m_.buffers.push_back(sim::GlobalBuffer{base, &bytes, std::move(name)});
    return base;
  }

  /// The memory of parameter `param` itself (slot `param`): what the parameter holds, the
  /// address of its region or of the 128 bytes holding its map's handle (`indirect`); a map
  /// parameter holds its handle, which the simulator writes (TensorMapArg::param).
  std::uint64_t own_memory(std::size_t param, const ArgMemory& mem) {
    const std::string& name = e_.params[param].name;
    if (!mem.map) {
      const std::uint64_t at = region(param, param, mem.bytes, name, false, mem.dtype);
      link(Link::In::param, param, 0, Link::To::region, m_.regions.size() - 1);
      return at;
    }
    if (!mem.indirect) {
      const std::uint64_t tensor = region(param, param, mem.bytes, name, false, mem.map->dtype);
      launch_.tensor_maps.push_back(sim::TensorMapArg{param, *mem.map, tensor});
      link(Link::In::param, param, 0, Link::To::map, launch_.tensor_maps.size() - 1);
      return tensor;
    }
    const std::size_t index = map(param, mem, name);
    const std::uint64_t at = handle_region(param, param, index, name + " (its map)");
    link(Link::In::param, param, 0, Link::To::region, m_.regions.size() - 1);
    return at;
  }

  /// A tensor map whose handle the caller places: its tensor in a further region; its index.
  std::size_t map(std::size_t param, const ArgMemory& mem, const std::string& name) {
    const std::uint64_t tensor = region(further(), param, mem.bytes,
                                        name + " (the tensor of its map)", false, mem.map->dtype);
    launch_.tensor_maps.push_back(sim::TensorMapArg{std::nullopt, *mem.map, tensor});
    return launch_.tensor_maps.size() - 1;
  }

  /// 128 bytes of global memory holding the handle of map `index`: their address.
  std::uint64_t handle_region(std::size_t slot, std::size_t param, std::size_t index,
                              const std::string& name) {
    const std::uint64_t at = region(slot, param, sim::tensor_map_bytes, name, false);
    const auto handle = sim::tensor_map_handle(index);
    std::copy(handle.begin(), handle.end(), m_.bytes.back().begin());
    link(Link::In::region, m_.regions.size() - 1, 0, Link::To::map, index);
    return at;
  }

  /// A struct parameter's bytes, with the addresses (or map handles) of its fields' memory.
  std::vector<std::uint8_t> fields(std::size_t k, const ParamPlan& p) {
    std::vector<std::uint8_t> raw = p.raw;
    for (const Field& f : p.fields) {
      const std::string name = e_.params[k].name + "+" + std::to_string(f.offset);
      const auto at = raw.begin() + static_cast<std::ptrdiff_t>(f.offset);
      if (f.memory.map && !f.memory.indirect) { // the map's 128 bytes in the struct
        const std::size_t index = map(k, f.memory, name);
        const auto handle = sim::tensor_map_handle(index);
        std::copy(handle.begin(), handle.end(), at);
        link(Link::In::param, k, f.offset, Link::To::map, index);
        continue;
      }
      const std::uint64_t address =
          f.memory.map ? handle_region(further(), k, map(k, f.memory, name), name + " (its map)")
                       : region(further(), k, f.memory.bytes, name, false, f.memory.dtype);
      link(Link::In::param, k, f.offset, Link::To::region, m_.regions.size() - 1);
      for (unsigned b = 0; b < 8; ++b)
        at[b] = static_cast<std::uint8_t>(address >> (8 * b));
    }
    return raw;
  }

  std::size_t further() { return plans_.size() + further_++; }

  void link(Link::In in, std::size_t index, std::uint64_t at, Link::To to, std::size_t target) {
    m_.links.push_back(Link{in, index, at, to, target});
  }

  const sim::ir::Entry& e_;
  const std::vector<ParamPlan>& plans_;
  std::uint64_t seed_;
  std::optional<tile::DType> value_fill_;
  sim::Launch& launch_;
  Memory m_;
  std::size_t further_ = 0;
};

/// The region an address belongs to (the nearest region start), if any.
const Region* region_of(std::uint64_t address, const Memory& m) {
  const std::uint64_t first = region_base(0) - region_stride / 2;
  if (address < first)
    return nullptr;
  const std::uint64_t base = region_base((address - first) / region_stride);
  const auto r = std::find_if(m.regions.begin(), m.regions.end(),
                              [&](const Region& x) { return x.base == base; });
  return r == m.regions.end() ? nullptr : &*r;
}

struct Run {
  sim::SimResult result;
  std::unique_ptr<sim::Observer> observer = std::make_unique<sim::Observer>();
  Memory memory;
};

/// One run with `seed`'s inputs and thread order; a region too small for an access within
/// its bound grows (to a power of two, at least four times its size) and the run starts again.
Run run_seed(const sim::Program& program, const sim::ir::Entry& e, sim::Launch launch,
             std::vector<ParamPlan>& plans, unsigned seed, std::uint8_t fill,
             std::optional<tile::DType> value_fill) {
  while (true) {
    Run r;
    r.memory = MemoryBuilder(e, plans, seed, value_fill, launch).build();
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
    const Region* at = region_of(*f->address, r.memory);
    if (at == nullptr || !at->grows || *f->address < at->base)
      return r;
    // The access starts at the address; its size is not known here (a bulk copy's may be
    // large), so the region at least quadruples each time, up to the bound: a kernel that walks
    // its operands (a GEMM's K loop) reaches past each size in turn, and every growth runs the
    // kernel again from the start.
    std::uint64_t& bytes = plans[at->param].bytes;
    const std::uint64_t need = *f->address - at->base + 64;
    if (need > region_max_bytes || bytes >= region_max_bytes)
      return r;
    bytes = std::min(region_max_bytes, std::max(std::bit_ceil(need), 4 * bytes));
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
Finding fault_finding(const sim::Fault& f, const Memory& memory, unsigned seed) {
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
  const Region* at = f.address ? region_of(*f.address, memory) : nullptr;
  if (at != nullptr) {
    const std::size_t k = static_cast<std::size_t>(at - memory.regions.data());
    x.symbol = at->name;
    x.offset = *f.address - at->base; // wraps for an access below the region: printed signed
    if (f.kind == FaultKind::illegal_address) {
      x.kind = FindingKind::out_of_bounds;
      const auto off = static_cast<std::int64_t>(*f.address - at->base);
      x.message += " (parameter `" + x.symbol + "`: offset " + std::to_string(off) + " of its " +
                   std::to_string(memory.bytes[k].size()) + " bytes" +
                   (at->grows ? ", a region lint grows up to " + std::to_string(region_max_bytes)
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
    case Code::bulk_reduce:
    case Code::tensor_load:
    case Code::tensor_store:
    case Code::tensor_reduce:
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
    const std::uint64_t bytes = plans[k].kind == ParamPlan::Kind::region  ? plans[k].bytes
                                : plans[k].kind == ParamPlan::Kind::sized ? plans[k].memory.bytes
                                                                          : 0;
    r.params.push_back({e.params[k].name, how, bytes});
  }
}

/// What a user of lint can do about an unsupported run-time fault: for a tensor copy through
/// a map lint was not told of, the --arg forms that describe one.
std::string what_to_do(const sim::ir::Entry& e, const sim::Fault& f) {
  const bool tensor_copy = std::any_of(e.ops.begin(), e.ops.end(), [&](const sim::ir::Op& op) {
    return op.line == f.ptx_line &&
           (op.code == Code::tensor_load || op.code == Code::tensor_store ||
            op.code == Code::tensor_reduce || op.code == Code::prefetch_tensormap);
  });
  if (!tensor_copy || f.kind != FaultKind::unsupported)
    return {};
  return "; lint knows the maps its --arg describe: a map parameter --arg K=TYPE[D0,...]:box[B0,"
         "...], a pointer to a map in global memory (`const CUtensorMap*`) --arg "
         "K=@TYPE[D0,...]:box[B0,...], a map inside a struct parameter --arg "
         "K+OFFSET=TYPE[D0,...]:box[B0,...] (docs/lint.md, \"Tensor maps\")";
}

/// An unsupported fault's finding: the line the run reached (or, for an entry the simulator
/// refuses whole, the problems of its functions; lines no thread reaches are no finding), else
/// the fault's own line and words with what to do.
void record_unsupported(const sim::Program& program, const sim::ir::Entry& e, const sim::Fault& f,
                        unsigned seed, KernelReport& r) {
  bool named = false;
  for (const auto& u : program.unsupported(e.name)) {
    if (e.problems.empty() && u.line != f.ptx_line)
      continue;
    Finding x;
    x.kind = FindingKind::unsupported;
    x.line = u.line;
    x.seed = seed;
    x.message = "`" + u.text + "`: " + u.reason;
    add_finding(r.findings, std::move(x));
    named = true;
  }
  if (named)
    return;
  Finding x;
  x.kind = FindingKind::unsupported;
  x.line = f.ptx_line;
  x.seed = seed;
  x.message = f.message + what_to_do(e, f);
  add_finding(r.findings, std::move(x));
}

/// A seed's run into the report; whether the kernel could run at all (else r.status says why).
bool record_run(const sim::Program& program, const sim::ir::Entry& e, const Run& run, unsigned seed,
                KernelReport& r) {
  const sim::Observer& o = *run.observer;
  for (std::size_t i = 0; i < o.races.size(); ++i)
    add_finding(r.findings, race_finding(o.races[i], o.race_hits[i], seed));
  r.coverage.races_unlisted = std::max(r.coverage.races_unlisted, o.dropped_races);
  if (!run.result.fault)
    return true;
  const sim::Fault& f = *run.result.fault;
  switch (sim::origin(f.kind)) {
  case sim::FaultOrigin::kernel:
    add_finding(r.findings, fault_finding(f, run.memory, seed));
    return true;
  case sim::FaultOrigin::simulator:
    if (f.kind == FaultKind::instruction_limit) {
      add_finding(r.findings, fault_finding(f, run.memory, seed));
      return true;
    }
    record_unsupported(program, e, f, seed, r);
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
                     std::optional<tile::DType> value_fill, KernelReport& r,
                     std::vector<bool>& line_run) {
  const auto& reads = first.observer->unwritten_reads;
  if (reads.empty() || first.result.fault)
    return;
  const Run again = run_seed(program, e, launch, plans, 0, second_fill, value_fill);
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

/// Options::save_run: the first run's launch, its memory built anew (the inputs, with the
/// regions as the run grew them) and as the run left it; a failure to write is the report's
/// error.
void save_first_run(const sim::ir::Entry& e, const sim::Launch& launch,
                    const std::vector<ParamPlan>& plans, const Run& run, const Options& options,
                    KernelReport& r) {
  sim::Launch built = launch;
  const Memory inputs = MemoryBuilder(e, plans, 0, options.value_fill, built).build();
  if (auto s = save_run(options.save_run, e, built, inputs, run.memory, run.result); !s) {
    r.status = KernelStatus::error;
    r.error = "--save-run " + options.save_run + ": " + s.error();
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
  l.run_ctas = o.ctas;
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
  const std::uint64_t ctas =
      launch.run_ctas == 0 ? launch.grid_total() : std::min(launch.grid_total(), launch.run_ctas);
  r.coverage.threads = ctas * launch.block_total();
  std::vector<ParamPlan> plans;
  if (auto planned = plan_params(e, options.args, plans); !planned) {
    r.error = planned.error();
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
    const Run run = run_seed(program, e, launch, plans, seed, sim::poison_byte, options.value_fill);
    count_coverage(e, run, r.coverage, line_run);
    if (seed == 0 && !options.save_run.empty())
      save_first_run(e, launch, plans, run, options, r);
    if (!record_run(program, e, run, seed, r))
      break;
    if (seed == 0)
      check_unwritten(program, e, launch, plans, run, options.value_fill, r, line_run);
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
