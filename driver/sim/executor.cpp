// The executor: runs one entry of a parsed module over a launch, CTA by CTA
// (the CTA itself: cta.hpp). See simulator.hpp for the execution, cp.async and race model.

#include "driver/sim/cluster.hpp"
#include "driver/sim/cta.hpp"
#include "driver/sim/ir.hpp"
#include "driver/sim/simulator.hpp"
#include "emitter/ptx/feature.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace ptxgen::sim {
namespace {

using exec::Cta;
using exec::dim_text;
using exec::ExitWarnings;
using exec::FaultThrow;
using exec::LaunchContext;

std::string limits_text(const std::array<std::int64_t, 3>& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

/// Whether `code` touches shared memory (counted per thread for iterations).
bool is_memory_op(ir::Code code) {
  return code == ir::Code::ld || code == ir::Code::st || code == ir::Code::cp_async ||
         code == ir::Code::ldmatrix || code == ir::Code::bulk_copy || code == ir::Code::atom ||
         code == ir::Code::red || code == ir::Code::bulk_store || code == ir::Code::bulk_reduce ||
         code == ir::Code::tensor_load || code == ir::Code::tensor_store ||
         code == ir::Code::tensor_reduce || code == ir::Code::stmatrix || code == ir::Code::wgmma ||
         code == ir::Code::wmma_load || code == ir::Code::wmma_store ||
         // the mbarriers a cluster's peers use (their iterations name them: cta_cluster.cpp)
         code == ir::Code::mbar_init || code == ir::Code::mbar_arrive ||
         code == ir::Code::mbar_arrive_tx || code == ir::Code::mbar_expect_tx ||
         code == ir::Code::bulk_peer;
}

/// Whether `code` reads global memory through the async proxy (a bulk or tensor load).
bool is_async_global_read(ir::Code code) {
  return code == ir::Code::bulk_copy || code == ir::Code::tensor_load;
}

/// Whether `code` is one of the mbarrier family (the entry then keeps vector clocks).
bool is_mbarrier_op(ir::Code code) {
  return code == ir::Code::mbar_init || code == ir::Code::mbar_arrive ||
         code == ir::Code::mbar_arrive_drop || code == ir::Code::mbar_arrive_tx ||
         code == ir::Code::mbar_expect_tx || code == ir::Code::mbar_wait ||
         code == ir::Code::mbar_wait_parity || code == ir::Code::mbar_inval ||
         code == ir::Code::cp_mbar_arrive || code == ir::Code::bulk_copy ||
         code == ir::Code::tensor_load || code == ir::Code::bulk_peer;
}

/// Whether `op` uses a named barrier in a way that may order a subset of the CTA's threads
/// (a thread count, an arrival without wait): the entry then keeps vector clocks, as for
/// mbarriers (cta_barrier.cpp).
bool is_partial_barrier(const ir::Op& op) {
  return op.code == ir::Code::bar_arrive ||
         ((op.code == ir::Code::bar || op.code == ir::Code::bar_red) &&
          op.src[1].kind != ir::Val::Kind::none);
}

Fault launch_fault(FaultKind k, std::string message, std::uint32_t line = 0) {
  Fault f;
  f.kind = k;
  f.message = std::move(message);
  f.ptx_line = line;
  return f;
}

/// The launch's cluster shape: the entry's `.reqnctapercluster`, else the launch's, else 1,1,1.
Dim3 cluster_shape(const ir::Entry& e, const Launch& launch) {
  if (e.reqnctapercluster)
    return *e.reqnctapercluster;
  return launch.cluster_dim.value_or(Dim3{1, 1, 1});
}

/// Why the cluster shape does not fit the entry or the grid (invalid_launch), if it does not.
std::optional<Fault> check_cluster(const ir::Entry& e, const Launch& launch) {
  const Dim3 c = cluster_shape(e, launch);
  if (e.reqnctapercluster && launch.cluster_dim && *launch.cluster_dim != c)
    return launch_fault(FaultKind::invalid_launch,
                        "entry `" + e.name + "` requires .reqnctapercluster " + dim_text(c) +
                            " but the launch has cluster (" + dim_text(*launch.cluster_dim) + ")",
                        e.line);
  const std::uint64_t n = static_cast<std::uint64_t>(c[0]) * c[1] * c[2];
  if (n == 0 || n > max_cluster_ctas || (e.maxclusterrank && n > *e.maxclusterrank))
    return launch_fault(FaultKind::invalid_launch,
                        "the cluster (" + dim_text(c) + ") has " + std::to_string(n) +
                            " CTAs; a cluster holds 1 to " +
                            std::to_string(e.maxclusterrank
                                               ? std::min(*e.maxclusterrank, max_cluster_ctas)
                                               : max_cluster_ctas) +
                            (e.maxclusterrank ? " (the entry's .maxclusterrank)" : ""),
                        e.line);
  for (std::size_t k = 0; k < 3; ++k) {
    if (launch.grid_dim[k] % c[k] != 0)
      return launch_fault(FaultKind::invalid_launch,
                          "the grid (" + dim_text(launch.grid_dim) +
                              ") is not divisible by the cluster (" + dim_text(c) + ") along " +
                              std::string(1, "xyz"[k]),
                          e.line);
  }
  return std::nullopt;
}

/// Why `launch` does not fit entry `e` (a fault of kind invalid_launch / unsupported), if it does
/// not.
std::optional<Fault> check_launch(const ir::Entry& e, const Launch& launch) {
  for (const auto& op : e.ops) {
    if (op.code == ir::Code::unsupported && !launch.run_to_unsupported)
      return launch_fault(FaultKind::unsupported,
                          "PTX line " + std::to_string(op.line) + " `" + e.texts[op.text] +
                              "`: " + e.texts[static_cast<std::size_t>(op.n)],
                          op.line);
  }
  if (launch.params.size() != e.params.size())
    return launch_fault(FaultKind::invalid_launch,
                        "the launch passes " + std::to_string(launch.params.size()) +
                            " parameters; entry `" + e.name + "` declares " +
                            std::to_string(e.params.size()),
                        e.line);
  bool dims_ok = launch.block_total() <= static_cast<std::uint64_t>(ptx::max_block_threads);
  for (std::size_t k = 0; k < 3; ++k) {
    dims_ok = dims_ok && launch.grid_dim[k] >= 1 && launch.grid_dim[k] <= ptx::max_grid_dims[k] &&
              launch.block_dim[k] >= 1 && launch.block_dim[k] <= ptx::max_block_dims[k];
  }
  if (!dims_ok)
    return launch_fault(
        FaultKind::invalid_launch,
        "grid (" + dim_text(launch.grid_dim) + ") x block (" + dim_text(launch.block_dim) +
            ") is not a valid launch (every dimension at least 1, block at most (" +
            limits_text(ptx::max_block_dims) + ") and " + std::to_string(ptx::max_block_threads) +
            " threads in all, grid at most (" + limits_text(ptx::max_grid_dims) + "))");
  if (auto bad = check_cluster(e, launch))
    return bad;
  if (e.reqntid && *e.reqntid != launch.block_dim)
    return launch_fault(FaultKind::invalid_launch,
                        "entry `" + e.name + "` requires .reqntid " + dim_text(*e.reqntid) +
                            " but the launch has block (" + dim_text(launch.block_dim) + ")",
                        e.line);
  if (const std::uint64_t total = e.shared_bytes + launch.dynamic_shared_bytes;
      total > static_cast<std::uint64_t>(ptx::max_dynamic_shared_bytes_any_target()))
    return launch_fault(FaultKind::invalid_launch,
                        "entry `" + e.name + "` with " +
                            std::to_string(launch.dynamic_shared_bytes) +
                            " dynamic shared bytes needs " + std::to_string(total) +
                            " bytes of shared memory; no target has more than " +
                            std::to_string(ptx::max_dynamic_shared_bytes_any_target()),
                        e.line);
  return std::nullopt;
}

/// Why the launch's tensor maps do not fit entry `e` (invalid_launch), if they do not: a map's
/// parameter must be a 128-byte array, named once; the map valid; its tensor 16-byte aligned;
/// every other array parameter given its bytes (Launch::param_arrays), which fit it.
std::optional<Fault> check_tensor_maps(const ir::Entry& e, const Launch& launch) {
  std::vector<bool> named(e.params.size(), false);
  for (std::size_t k = 0; k < launch.tensor_maps.size(); ++k) {
    const TensorMapArg& m = launch.tensor_maps[k];
    const std::string which = "tensor map " + std::to_string(k) + " (`" + m.desc.tensor + "`)";
    if (m.param && (*m.param >= e.params.size() || e.params[*m.param].size != tensor_map_bytes ||
                    named[*m.param]))
      return launch_fault(FaultKind::invalid_launch,
                          which + " names parameter " + std::to_string(*m.param) +
                              ", which is not a 128-byte array parameter of entry `" + e.name +
                              "` that no other map names",
                          e.line);
    if (m.param)
      named[*m.param] = true;
    if (const Diagnostics bad = tile::check_tensor_map(m.desc); !bad.empty())
      return launch_fault(FaultKind::invalid_launch,
                          which + " is not valid: " + bad.items().front().message, e.line);
    if (m.global_address % static_cast<std::uint64_t>(tile::kTensorMapGranule) != 0)
      return launch_fault(FaultKind::invalid_launch,
                          which + ": its tensor's address " + exec::hex(m.global_address) +
                              " is not 16-byte aligned",
                          e.line);
  }
  for (std::size_t k = 0; k < e.params.size(); ++k) {
    const std::vector<std::uint8_t>* bytes =
        k < launch.param_arrays.size() ? &launch.param_arrays[k] : nullptr;
    const bool given = bytes != nullptr && !bytes->empty();
    if (given &&
        (named[k] || bytes->size() > e.params[k].size || e.params[k].size <= sizeof(std::uint64_t)))
      return launch_fault(FaultKind::invalid_launch,
                          "the " + std::to_string(bytes->size()) + " bytes given for parameter `" +
                              e.params[k].name + "` do not fit it: an array parameter of " +
                              std::to_string(e.params[k].size) + " bytes that no tensor map names",
                          e.line);
    if (e.params[k].size > sizeof(std::uint64_t) && !named[k] && !given)
      return launch_fault(FaultKind::unsupported,
                          "parameter `" + e.params[k].name + "` is a " +
                              std::to_string(e.params[k].size) +
                              "-byte array; the simulator fills an array parameter with a "
                              "tensor map (Launch::tensor_maps) or the caller's bytes "
                              "(Launch::param_arrays)",
                          e.line);
  }
  return std::nullopt;
}

/// The parameter space's bytes: each scalar's value, each tensor map's handle.
std::vector<std::uint8_t> parameter_bytes(const ir::Entry& e, const Launch& launch) {
  std::vector<std::uint8_t> params(e.param_bytes, 0);
  for (std::size_t k = 0; k < e.params.size(); ++k) {
    if (e.params[k].size <= sizeof(std::uint64_t))
      std::memcpy(params.data() + e.params[k].offset, &launch.params[k], e.params[k].size);
  }
  for (std::size_t k = 0; k < launch.param_arrays.size() && k < e.params.size(); ++k) {
    const std::vector<std::uint8_t>& bytes = launch.param_arrays[k];
    if (!bytes.empty() && bytes.size() <= e.params[k].size)
      std::memcpy(params.data() + e.params[k].offset, bytes.data(), bytes.size());
  }
  for (std::size_t k = 0; k < launch.tensor_maps.size(); ++k) {
    if (const auto p = launch.tensor_maps[k].param) {
      const auto handle = tensor_map_handle(k);
      std::memcpy(params.data() + e.params[*p].offset, handle.data(), handle.size());
    }
  }
  return params;
}

/// Whether the CTAs of a launch may run on several host threads and give what one after
/// the other gives: no atomics nor bulk reductions (CTAs may read-modify-write the same
/// global bytes) and no %clock / %globaltimer read (its value is the launch's instruction
/// count so far). Other
/// global bytes that one CTA writes and another reads or writes are a race (cross_cta.hpp,
/// found at the merge in CTA order); everything else a CTA touches (shared memory,
/// mbarriers, registers) is its own.
bool ctas_independent(const ir::Entry& e) {
  for (const ir::Op& op : e.ops) {
    if (op.code == ir::Code::atom || op.code == ir::Code::red || op.code == ir::Code::bulk_reduce ||
        op.code == ir::Code::tensor_reduce)
      return false;
    for (const ir::Val& v : op.src) {
      if (v.kind == ir::Val::Kind::special &&
          (v.special == ptx::SpecialRegister::clock || v.special == ptx::SpecialRegister::clock64 ||
           v.special == ptx::SpecialRegister::globaltimer))
        return false;
    }
  }
  return true;
}

/// Whether the entry may access a peer's shared memory with ld / st / atom / red (a
/// `.shared::cluster` one, or a generic one after a generic mapa) and orders its CTAs by the
/// cluster barrier alone: its clusters then track the races between CTAs on shared bytes
/// (cta_cluster.cpp). An entry that also signals a peer's mbarrier (a remote arrive, a peer or
/// multicast copy) may order its DSMEM accesses through it, which the cluster rules do not
/// follow: its DSMEM accesses are not checked (simulator.hpp, "Clusters").
bool uses_dsmem(const ir::Entry& e) {
  bool dsmem = false;
  for (const ir::Op& op : e.ops) {
    const bool access = op.code == ir::Code::ld || op.code == ir::Code::st ||
                        op.code == ir::Code::atom || op.code == ir::Code::red;
    const bool signal =
        op.code == ir::Code::bulk_peer || op.multicast ||
        (op.cluster && (op.code == ir::Code::mbar_arrive || op.code == ir::Code::mbar_arrive_tx ||
                        op.code == ir::Code::mbar_expect_tx));
    if (signal)
      return false;
    dsmem = dsmem || (access && op.cluster) ||
            (op.code == ir::Code::mapa && op.space == ir::Space::generic);
  }
  return dsmem;
}

/// The clusters of the launch one after the other, each cluster's CTAs together (cluster.hpp);
/// the first fault stops it.
void run_clusters(const LaunchContext& c, const Dim3& cluster) {
  const std::uint64_t n = static_cast<std::uint64_t>(cluster[0]) * cluster[1] * cluster[2];
  try {
    const std::uint64_t clusters = c.l.grid_total() / n;
    const std::uint64_t run =
        c.l.run_ctas == 0 ? clusters : std::min(clusters, (c.l.run_ctas + n - 1) / n);
    for (std::uint64_t k = 0; k < run; ++k) {
      exec::Cluster cl(c, exec::cluster_ctas(c.l, cluster, k));
      cl.run();
    }
  } catch (const FaultThrow& f) {
    c.res.fault = f.fault;
  }
}

/// One CTA's part of a launch: its own count, exit warnings and fault, and its global
/// accesses for the cross-CTA check.
struct CtaRun {
  SimResult res;
  ExitWarnings exits;
  exec::CtaGlobalLog log;
};

/// Runs CTA `bid` alone into `r`, with `limit` instructions to spend.
void run_one_cta(const LaunchContext& c, std::uint64_t bid, std::uint64_t limit, CtaRun& r) {
  const LaunchContext own{c.e,
                          c.l,
                          c.mem,
                          c.params,
                          c.slot,
                          c.slots,
                          c.uses_mbarriers,
                          c.uses_reserved,
                          c.async_global_reads,
                          c.logs_global,
                          c.cluster_dim,
                          c.explicit_cluster,
                          c.uses_dsmem,
                          r.res,
                          r.exits,
                          limit};
  try {
    Cta cta(own, bid);
    cta.run();
    r.log = cta.take_global_log();
  } catch (const FaultThrow& f) {
    r.res.fault = f.fault;
  }
}

void merge_exits(ExitWarnings& into, const ExitWarnings& from) {
  if (into.threads == 0)
    into.first = from.first;
  into.threads += from.threads;
}

/// The CTAs one after the other, as the launch's semantics reads: the first fault stops it.
void run_ctas_in_order(const LaunchContext& c, std::uint64_t grid) {
  exec::CrossCta cross(c.e, c.l, c.mem);
  try {
    for (std::uint64_t bid = 0; bid < grid; ++bid) {
      Cta cta(c, bid);
      cta.run();
      if (!c.logs_global)
        continue;
      if (auto race = cross.add(bid, cta.take_global_log()))
        throw FaultThrow{std::move(*race)};
    }
  } catch (const FaultThrow& f) {
    c.res.fault = f.fault;
  }
}

/// The CTAs on `workers` host threads, each CTA with its own count and warnings, merged in
/// CTA order into what run_ctas_in_order gives: counts summed up to the first CTA that
/// faults (whose fault is the launch's; CTAs are claimed in order, so every CTA before it
/// ran) or that takes the sum past the limit (rerun alone with what the CTAs before it left,
/// to fault where the in-order run does). Once a CTA faults no new CTA starts.
void run_ctas_in_parallel(const LaunchContext& c, std::uint64_t grid, unsigned workers) {
  std::vector<CtaRun> runs(grid);
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    while (!stop) {
      const std::uint64_t bid = next++; // claimed: it runs (a CTA after a fault may)
      if (bid >= grid)
        return;
      run_one_cta(c, bid, c.max_instructions, runs[bid]);
      if (runs[bid].res.fault)
        stop = true;
    }
  };
  std::vector<std::jthread> pool;
  for (unsigned w = 1; w < workers; ++w)
    pool.emplace_back(work);
  work();
  pool.clear(); // joins
  std::uint64_t total = 0;
  exec::CrossCta cross(c.e, c.l, c.mem);
  for (std::uint64_t bid = 0; bid < grid; ++bid) {
    CtaRun& r = runs[bid];
    if (!r.res.fault && c.logs_global)
      r.res.fault = cross.add(bid, std::move(r.log)); // in CTA order, as run_ctas_in_order finds it
    if (r.res.instructions_executed > c.max_instructions - total) {
      CtaRun again;
      run_one_cta(c, bid, c.max_instructions - total, again);
      c.res.instructions_executed = total + again.res.instructions_executed;
      c.res.fault = std::move(again.res.fault);
      merge_exits(c.exits, again.exits);
      return;
    }
    total += r.res.instructions_executed;
    merge_exits(c.exits, r.exits);
    if (r.res.fault) {
      c.res.fault = std::move(r.res.fault);
      break;
    }
  }
  c.res.instructions_executed = total;
}

} // namespace

SimResult run(const Program& p, std::string_view entry, const Launch& launch,
              std::vector<GlobalBuffer>& memory) {
  SimResult res;
  const ir::Module& m = p.module();
  const ir::Entry* e = nullptr;
  std::string names;
  for (const auto& x : m.entries) {
    if (!x.from_func)
      names += (names.empty() ? "`" : ", `") + x.name + "`";
    if (x.name == entry)
      e = &x;
  }
  if (e == nullptr) {
    res.fault = launch_fault(FaultKind::invalid_launch,
                             "the module has no entry `" + std::string(entry) +
                                 "` (entries: " + (names.empty() ? "none" : names) + ")");
    return res;
  }
  if (!e->problems.empty()) {
    // Only this entry's problems (and those of the .funcs it calls) refuse it.
    const bool all_unsupported =
        std::all_of(e->problems.begin(), e->problems.end(),
                    [](const Diagnostic& d) { return d.id == DiagId::sim_unsupported_construct; });
    std::string message;
    for (const auto& d : e->problems)
      message += (message.empty() ? "" : "\n") + ptxgen::format(d);
    res.fault = launch_fault(all_unsupported ? FaultKind::unsupported : FaultKind::invalid_ptx,
                             std::move(message), e->problems.front().line);
    return res;
  }
  if (auto bad = check_launch(*e, launch)) {
    res.fault = std::move(bad);
    return res;
  }
  if (auto bad = check_tensor_maps(*e, launch)) {
    res.fault = std::move(bad);
    return res;
  }
  const std::vector<std::uint8_t> params = parameter_bytes(*e, launch);
  std::vector<std::int32_t> slot(e->ops.size(), -1);
  std::uint32_t slots = 0;
  bool uses_mbarriers = false;
  bool uses_reserved = false;
  bool async_global_reads = false;
  for (std::size_t k = 0; k < e->ops.size(); ++k) {
    if (is_memory_op(e->ops[k].code))
      slot[k] = static_cast<std::int32_t>(slots++);
    // bar.warp.sync orders its lanes' memory like a partial barrier: vector clocks too
    uses_mbarriers = uses_mbarriers || is_mbarrier_op(e->ops[k].code) ||
                     is_partial_barrier(e->ops[k]) || e->ops[k].code == ir::Code::warp_sync;
    async_global_reads = async_global_reads || is_async_global_read(e->ops[k].code);
    for (const ir::Val& v : e->ops[k].src)
      uses_reserved = uses_reserved || (v.kind == ir::Val::Kind::special &&
                                        v.special >= ptx::SpecialRegister::reserved_smem_begin);
  }
  const Dim3 cluster = cluster_shape(*e, launch);
  const std::uint64_t cluster_size =
      static_cast<std::uint64_t>(cluster[0]) * cluster[1] * cluster[2];
  ExitWarnings exits;
  // The module's own .global / .const variables: fresh copies for this launch.
  std::vector<std::vector<std::uint8_t>> data;
  data.reserve(m.data.size());
  std::vector<GlobalBuffer> all = memory;
  for (const auto& d : m.data) {
    data.push_back(d.init);
    all.push_back(GlobalBuffer{d.address, &data.back(), d.name});
  }
  const LaunchContext context{
      *e, launch, all, params, slot, slots, uses_mbarriers, uses_reserved, async_global_reads,
      // the CTAs of a cluster order each other (its barrier): checked
      // only between clusters of one CTA (simulator.hpp, "Clusters")
      launch.grid_total() > 1 && exec::cross_cta_checked(*e) && cluster_size == 1, cluster,
      e->reqnctapercluster.has_value() || launch.cluster_dim.has_value(), uses_dsmem(*e), res,
      exits, launch.max_instructions};
  const std::uint64_t grid =
      launch.run_ctas == 0 ? launch.grid_total() : std::min(launch.grid_total(), launch.run_ctas);
  const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(
      grid,
      launch.workers != 0 ? launch.workers : std::max(1u, std::thread::hardware_concurrency())));
  if (launch.observer != nullptr)
    launch.observer->executed.assign(e->ops.size(), 0);
  if (cluster_size > 1)
    run_clusters(context, cluster);
  else if (workers > 1 && ctas_independent(*e) && launch.observer == nullptr)
    run_ctas_in_parallel(context, grid, workers);
  else
    run_ctas_in_order(context, grid);
  if (exits.threads > 0)
    res.warnings.push_back(
        std::to_string(exits.threads) +
        " thread(s) exited with cp.async copies never waited for (first: " + exits.first +
        "); the simulator performed them at exit, as the hardware "
        "eventually would");
  return res;
}

} // namespace ptxgen::sim
