// The executor's CTA: construction, faults, special registers, calls and exits (cta.hpp).

#include "driver/sim/cta.hpp"

#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::sim::exec {

Cta::Cta(const LaunchContext& c, std::uint64_t bid)
    : e_(c.e), l_(c.l), mem_(c.mem), params_(c.params), slot_(c.slot), bid_(bid),
      bid_xyz_(coordinates(bid, c.l.grid_dim)), res_(c.res), exits_(c.exits),
      max_instructions_(c.max_instructions),
      reserved_begin_((c.e.shared_bytes + c.l.dynamic_shared_bytes + 15) / 16 * 16),
      smem_(c.uses_reserved ? reserved_begin_ + reserved_smem_bytes
                            : c.e.shared_bytes + c.l.dynamic_shared_bytes,
            c.l.shared_fill),
      track_(smem_.size()),
      regfile_(static_cast<std::size_t>(c.l.block_total()) * c.e.reg_mask.size(), 0),
      frames_(static_cast<std::size_t>(c.l.block_total()) * c.e.frame_bytes, 0),
      iterations_(static_cast<std::size_t>(c.l.block_total()) * c.slots, 0),
      mb_(static_cast<std::uint32_t>(c.l.block_total()), c.uses_mbarriers),
      async_global_reads_(c.async_global_reads), logs_global_(c.logs_global),
      generic_writes_(c.async_global_reads ? c.mem.size() : 0) {
  if (l_.profile != nullptr) // run --profile
    prof_.emplace(l_.block_total());
  cluster_dim_ = c.cluster_dim;
  cluster_size_ = cluster_dim_[0] * cluster_dim_[1] * cluster_dim_[2];
  explicit_cluster_ = c.explicit_cluster;
  const Dim3 in_cluster = {bid_xyz_[0] % cluster_dim_[0], bid_xyz_[1] % cluster_dim_[1],
                           bid_xyz_[2] % cluster_dim_[2]};
  rank_ = in_cluster[0] + in_cluster[1] * cluster_dim_[0] +
          in_cluster[2] * cluster_dim_[0] * cluster_dim_[1];
  if (c.uses_dsmem && cluster_size_ > 1)
    ctrack_.resize(smem_.size());
  threads_.resize(static_cast<std::size_t>(c.l.block_total()));
  for (std::uint32_t t = 0; t < threads_.size(); ++t) {
    threads_[t].tid = t;
    threads_[t].xyz = coordinates(t, c.l.block_dim);
    threads_[t].regs = regfile_.data() + static_cast<std::size_t>(t) * e_.reg_mask.size();
    threads_[t].iterations = iterations_.data() + static_cast<std::size_t>(t) * c.slots;
    threads_[t].frame = frames_.data() + static_cast<std::size_t>(t) * e_.frame_bytes;
  }
  wgmma_setup(); // an entry with wgmma tracks registers from its first instruction
  if (l_.schedule_seed != 0) {
    // Fisher-Yates over splitmix64, seeded by the launch's seed and the CTA: every CTA its
    // own order, the same for the same seed.
    order_.resize(threads_.size());
    for (std::uint32_t t = 0; t < order_.size(); ++t)
      order_[t] = t;
    std::uint64_t state = l_.schedule_seed ^ (bid * 0x9E3779B97F4A7C15ull);
    for (std::size_t k = order_.size(); k > 1; --k) {
      state += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      std::swap(order_[k - 1], order_[z % k]);
    }
  }
}

Cta::~Cta() {
  if (prof_) // this CTA's requests into the launch's figures
    l_.profile->merge(*prof_);
}

std::string Cta::who(std::uint32_t tid) const {
  return "thread (bid " + dim_text(bid_xyz_) + " / tid " + dim_text(threads_[tid].xyz) + ")";
}

std::string Cta::other(std::uint32_t tid) const {
  return "thread (tid " + dim_text(threads_[tid].xyz) + ")";
}

Fault Cta::fault_for(FaultKind k, const Thread& t, const ir::Op& op) const {
  Fault f;
  f.kind = k;
  f.bid = static_cast<std::int64_t>(bid_);
  f.tid = t.tid;
  f.ptx_line = op.line;
  f.message = who(t.tid) + ", PTX line " + std::to_string(op.line) + " `" + e_.texts[op.text] + "`";
  return f;
}

[[noreturn]] void Cta::fault_at(FaultKind k, const Thread& t, const ir::Op& op,
                                const std::string& detail) const {
  Fault f = fault_for(k, t, op);
  f.message += ": " + detail;
  throw FaultThrow{std::move(f)};
}

std::uint64_t Cta::special(const Thread& t, ptx::SpecialRegister sp) const {
  // %tid, %ntid, %ctaid and %nctaid: the emitter declares each as .x, .y, .z in a row.
  static_assert(static_cast<unsigned>(ptx::SpecialRegister::ntid_x) == 3 &&
                static_cast<unsigned>(ptx::SpecialRegister::ctaid_x) == 6 &&
                static_cast<unsigned>(ptx::SpecialRegister::nctaid_z) == 11);
  const auto index = static_cast<unsigned>(sp);
  if (sp <= ptx::SpecialRegister::nctaid_z) {
    const Dim3* const vectors[4] = {&t.xyz, &l_.block_dim, &bid_xyz_, &l_.grid_dim};
    return (*vectors[index / 3])[index % 3];
  }
  switch (sp) {
  case ptx::SpecialRegister::tid_x:
  case ptx::SpecialRegister::tid_y:
  case ptx::SpecialRegister::tid_z:
  case ptx::SpecialRegister::ntid_x:
  case ptx::SpecialRegister::ntid_y:
  case ptx::SpecialRegister::ntid_z:
  case ptx::SpecialRegister::ctaid_x:
  case ptx::SpecialRegister::ctaid_y:
  case ptx::SpecialRegister::ctaid_z:
  case ptx::SpecialRegister::nctaid_x:
  case ptx::SpecialRegister::nctaid_y:
  case ptx::SpecialRegister::nctaid_z:
    break; // above
  case ptx::SpecialRegister::laneid:
    return t.tid & 31u; // warps are formed from the linear index
  case ptx::SpecialRegister::warpid:
    return t.tid >> 5; // on hardware a slot number; here the warp's index in the CTA
  case ptx::SpecialRegister::clock:
  case ptx::SpecialRegister::clock64:
  case ptx::SpecialRegister::globaltimer:
    return res_.instructions_executed; // deterministic and increasing
  case ptx::SpecialRegister::smid:     // one simulated SM
    return 0;
  case ptx::SpecialRegister::nsmid:
    return 1;
  case ptx::SpecialRegister::lanemask_eq:
    return 1ull << (t.tid & 31u);
  case ptx::SpecialRegister::lanemask_le:
    return mask((t.tid & 31u) + 1);
  case ptx::SpecialRegister::lanemask_lt:
    return mask(t.tid & 31u);
  case ptx::SpecialRegister::lanemask_ge:
    return ~mask(t.tid & 31u) & 0xffffffffull;
  case ptx::SpecialRegister::lanemask_gt:
    return ~mask((t.tid & 31u) + 1) & 0xffffffffull;
  case ptx::SpecialRegister::dynamic_smem_size:
    return l_.dynamic_shared_bytes;
  case ptx::SpecialRegister::total_smem_size:
    return e_.shared_bytes + l_.dynamic_shared_bytes;
  case ptx::SpecialRegister::nwarpid:
    return (l_.block_total() + 31) / 32;
  case ptx::SpecialRegister::cluster_ctarank:
    return rank_;
  case ptx::SpecialRegister::cluster_nctarank:
    return cluster_size_;
  case ptx::SpecialRegister::clusterid_x:
  case ptx::SpecialRegister::clusterid_y:
  case ptx::SpecialRegister::clusterid_z: {
    const unsigned k = index - static_cast<unsigned>(ptx::SpecialRegister::clusterid_x);
    return bid_xyz_[k] / cluster_dim_[k];
  }
  case ptx::SpecialRegister::nclusterid_x:
  case ptx::SpecialRegister::nclusterid_y:
  case ptx::SpecialRegister::nclusterid_z: {
    const unsigned k = index - static_cast<unsigned>(ptx::SpecialRegister::nclusterid_x);
    return l_.grid_dim[k] / cluster_dim_[k];
  }
  case ptx::SpecialRegister::cluster_ctaid_x:
  case ptx::SpecialRegister::cluster_ctaid_y:
  case ptx::SpecialRegister::cluster_ctaid_z: {
    const unsigned k = index - static_cast<unsigned>(ptx::SpecialRegister::cluster_ctaid_x);
    return bid_xyz_[k] % cluster_dim_[k];
  }
  case ptx::SpecialRegister::cluster_nctaid_x:
  case ptx::SpecialRegister::cluster_nctaid_y:
  case ptx::SpecialRegister::cluster_nctaid_z:
    return cluster_dim_[index - static_cast<unsigned>(ptx::SpecialRegister::cluster_nctaid_x)];
  case ptx::SpecialRegister::is_explicit_cluster:
    return explicit_cluster_ ? 1 : 0;
  case ptx::SpecialRegister::reserved_smem_begin: // after the kernel's shared memory
  case ptx::SpecialRegister::reserved_smem_0:     // (simulator.hpp, "Reserved shared memory")
    return reserved_begin_;
  case ptx::SpecialRegister::reserved_smem_end:
    return reserved_begin_ + reserved_smem_bytes;
  case ptx::SpecialRegister::reserved_smem_cap:
    return reserved_smem_bytes;
  case ptx::SpecialRegister::reserved_smem_1:
    return reserved_begin_ + 8;
  }
  unreachable("special(): not a ptx::SpecialRegister value");
}

void Cta::exit_thread(Thread& t, std::uint32_t line) {
  // Copies an mbarrier tracks (cp.async.mbarrier.arrive, bulk) land with their phase.
  const auto untracked = [&](const Copy& c) { return !c.bulk && c.seq >= t.tracked_seq; };
  if (std::any_of(t.copies.begin(), t.copies.end(), untracked)) {
    if (exits_.threads++ == 0)
      exits_.first = who(t.tid) + " at PTX line " + std::to_string(line) +
                     " (first copy: PTX line " + std::to_string(e_.ops[t.copies.front().op].line) +
                     ")";
    perform_if(t, untracked);
  }
  finish_bulk_stores(t, line);
  t.state = State::exited;
  t.stop_line = line;
  if (cluster_ != nullptr)
    cta_exit(t, line); // the cluster barrier stops counting it; the CTA's peers (cta_cluster.cpp)
}

void Cta::call(Thread& t, const ir::Op& op) {
  const ir::Call* pc = &e_.calls[static_cast<std::size_t>(op.n)];
  if (pc->indirect) {
    const std::uint64_t to = raw(t, op.src[0]);
    const ir::Call* found = nullptr;
    for (const std::uint32_t k : pc->alternatives) {
      if (e_.calls[k].address == to)
        found = &e_.calls[k];
    }
    if (found == nullptr)
      fault_at(FaultKind::illegal_address, t, op,
               "indirect call of address " + hex(to) + ", which is no function of the module");
    pc = found;
  }
  const ir::Call& c = *pc;
  for (const ir::Move& m : c.in)
    std::memmove(t.frame + m.to, t.frame + m.from, m.bytes);
  t.calls.push_back(t.pc - 1);
  t.call_index.push_back(static_cast<std::size_t>(&c - e_.calls.data()));
  t.pc = c.target;
}

void Cta::return_from_call(Thread& t) {
  const std::uint32_t at = t.calls.back();
  t.calls.pop_back();
  const ir::Call& c = e_.calls[t.call_index.back()];
  t.call_index.pop_back();
  for (const ir::Move& m : c.out)
    std::memmove(t.frame + m.to, t.frame + m.from, m.bytes);
  t.pc = at + 1;
}

} // namespace ptxgen::sim::exec
