#include "emitter/tile/multicast_refill.hpp"

#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"
#include "emitter/tile/multicast_contract.hpp"
#include "emitter/tile/op_table.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace ptxgen::tile {

// A named namespace: the unity build joins this file with the other contract files.
namespace multicast_refill {

/// Per thread of the cluster (rank * block + tid): how many of its reads are known done.
using Clock = std::vector<std::int32_t>;

void join(Clock& into, const Clock& from) {
  for (std::size_t i = 0; i < into.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

/// One barrier of one CTA: its arrivals so far in the current phase, what their threads
/// knew (`gathering`), and what a wait for the last completed phase learns (`released`).
struct Phases {
  std::int64_t count = 0;
  std::int64_t arrived = 0;
  Clock gathering;
  Clock released;
};

/// A barrier of one CTA: its tensor and byte offset.
using BarrierKey = std::pair<const Tensor*, std::int64_t>;

/// Bytes [lo, hi) of a shared tensor.
struct Span {
  const Tensor* tensor = nullptr;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

/// A read of a multicast destination not yet overwritten by a multicast: its bytes and
/// reader (thread of the cluster), then the reader's clock entry at the read.
using ReadKey = std::tuple<const Tensor*, std::int64_t, std::int64_t, std::int64_t>;
struct Read {
  std::int32_t epoch = 0;
  std::size_t op = 0;
  std::string loops; ///< ", k=0": the iteration of the read
};

/// The epoch of a bulk or tensor store's read of shared memory until a bulk_wait of its
/// thread retires its group: no clock reaches it.
constexpr std::int32_t pending = std::numeric_limits<std::int32_t>::max();

/// A store's pending read: the rank of the CTA read and the read's key.
using StoreRead = std::pair<std::size_t, ReadKey>;

/// The bytes of `v` for one thread: from its lowest to its highest byte (a read that
/// touches the span's ends only is taken as reading all of it, which refuses, never
/// accepts, more).
std::optional<Span> span_of(const View& v, const ExprEnv& env) {
  const std::vector<std::int64_t> zeros(v.rank(), 0);
  const auto start = v.byte_offset(zeros, env);
  if (!start)
    return std::nullopt;
  Span s{v.tensor, *start, *start + size_bytes(v.dtype)};
  for (const ViewAxis& a : v.axes) {
    const std::int64_t reach = (a.size - 1) * a.stride_bytes;
    (reach < 0 ? s.lo : s.hi) += reach;
  }
  return s;
}

/// True for a leaf whose value differs between clusters but not between the CTAs of one rank
/// in them: the CTA's index in the grid and the cluster's. cluster_rank is not one: every
/// cluster has the same ranks.
bool is_cta_leaf(const Expr& e) {
  if (e.kind == ExprKind::bid)
    return true;
  if (e.kind != ExprKind::special)
    return false;
  switch (e.special) {
  case Special::bid_x:
  case Special::bid_y:
  case Special::bid_z:
  case Special::cluster_id:
    return true;
  default:
    return false;
  }
}

std::string loops_text(const ExprEnv& env) {
  std::string s;
  for (const auto& [name, value] : env.loops)
    s += ", " + name + "=" + std::to_string(value);
  return s;
}

std::string params_text(const ExprEnv& env) {
  std::string s;
  for (const auto& [name, value] : env.params)
    s += ", " + name + "=" + std::to_string(value);
  return s;
}

/// An open loop: each CTA of the cluster runs its own values of the variable (start + i *
/// step at iteration i), the same number of times.
struct Frame {
  std::size_t for_op = 0;
  std::int64_t trips = 0;
  std::int64_t iteration = 0;
  std::vector<std::int64_t> start; ///< per rank
  std::vector<std::int64_t> step;  ///< per rank
};

class RefillWalk {
public:
  RefillWalk(const Kernel& k, Diagnostics& out, std::int64_t max_steps,
             std::span<const std::uint64_t> values)
      : k_(k), out_(out), budget_(max_steps), max_steps_(max_steps), values_(values) {
    for (const Op& op : k_.ops) {
      if (const auto* b = std::get_if<BulkLoadOp>(&op.body); b && b->multicast)
        targets_.insert(b->dst.value.tensor);
      if (const auto* t = std::get_if<TensorLoadOp>(&op.body); t && t->multicast)
        targets_.insert(t->dst.value.tensor);
    }
  }

  void run() {
    if (targets_.empty())
      return;
    for (std::int64_t b = 0; b < k_.grid && !stopped_; ++b) {
      const ClusterPlace place = cluster_place(k_, b);
      if (place.peers.front() != b)
        continue;
      run_cluster(place.peers);
      if (!cta_dependent_)
        return; // every other cluster walks the same way
    }
  }

private:
  const Kernel& k_;
  Diagnostics& out_;
  std::int64_t budget_;
  std::int64_t max_steps_;
  std::span<const std::uint64_t> values_;
  std::set<const Tensor*> targets_;                    ///< the shared tensors multicasts write
  std::set<std::size_t> reported_;                     ///< ops already refused
  std::vector<std::int64_t> bids_;                     ///< the cluster's CTAs by rank
  std::int64_t n_ = 0;                                 ///< threads of the cluster
  std::vector<ExprEnv> envs_;                          ///< per thread of the cluster
  std::vector<Clock> clocks_;                          ///< per thread of the cluster
  std::vector<std::map<BarrierKey, Phases>> barriers_; ///< per rank
  std::vector<std::map<ReadKey, Read>> reads_;         ///< per rank of the CTA read
  /// Per thread of the cluster: its stores' reads not yet committed, and its bulk groups.
  std::vector<std::vector<StoreRead>> open_;
  std::vector<std::vector<std::vector<StoreRead>>> groups_;
  bool stopped_ = false;
  /// Whether an expression the walk evaluated names the CTA or its cluster (is_cta_leaf).
  /// While none did, every cluster's walk is the first one's: its threads' values differ
  /// only in leaves it never read, so its verdicts are the same and it is not walked.
  bool cta_dependent_ = false;
  std::map<const Expr*, bool> cta_leaves_; ///< per expression node: names one

  /// Records whether e names the CTA or its cluster.
  void note(const Expr& e) {
    if (cta_dependent_)
      return;
    const auto [it, added] = cta_leaves_.try_emplace(&e, false);
    if (added)
      it->second = find_node(e, is_cta_leaf) != nullptr;
    cta_dependent_ = it->second;
  }
  void note(const View& v) {
    for (const RuntimeTerm& t : v.terms)
      note(*t.index);
    if (v.peer)
      note(*v.peer);
  }
  std::optional<std::int64_t> eval(const Expr& e, const ExprEnv& env) {
    note(e);
    return evaluate(e, env);
  }
  std::optional<Span> span(const View& v, const ExprEnv& env) {
    note(v);
    return span_of(v, env);
  }

  std::int64_t block() const { return k_.block; }
  std::size_t thread(std::size_t rank, std::int64_t tid) const {
    return rank * static_cast<std::size_t>(block()) + static_cast<std::size_t>(tid);
  }

  void too_long(std::size_t pc, const std::string& why) {
    stopped_ = true;
    const std::size_t at = std::min(pc, k_.ops.size() - 1);
    out_.add(diagnostic_at(DiagId::contract_mbarrier_too_long, k_.ops[at].pos,
                           "the multicast refill proof (CTA " + std::to_string(bids_.front()) +
                               "'s cluster, at this op) " + why,
                           1));
  }

  void run_cluster(const std::vector<std::int64_t>& bids) {
    bids_ = bids;
    n_ = static_cast<std::int64_t>(bids.size()) * block();
    if (n_ > max_refill_cluster_threads) {
      too_long(
          0, "keeps a clock of every thread of the cluster in each of them: " + std::to_string(n_) +
                 " threads is more than its " + std::to_string(max_refill_cluster_threads) +
                 "; make the block or the cluster smaller");
      return;
    }
    envs_.clear();
    for (const std::int64_t b : bids)
      for (std::int64_t t = 0; t < block(); ++t)
        envs_.push_back(k_.env_for(b, t, values_));
    clocks_.assign(static_cast<std::size_t>(n_), Clock(static_cast<std::size_t>(n_), 0));
    barriers_.assign(bids.size(), {});
    reads_.assign(bids.size(), {});
    open_.assign(static_cast<std::size_t>(n_), {});
    groups_.assign(static_cast<std::size_t>(n_), {});
    walk();
  }

  /// The loop's variable at the frame's iteration, in each CTA's threads.
  void set_loop(const std::string& var, const Frame& fr) {
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t)
        envs_[thread(r, t)].loops[var] = fr.start[r] + fr.iteration * fr.step[r];
  }

  /// A loop's values in each CTA of the cluster, which must run it the same number of times
  /// (the walk runs a cluster's CTAs in step; the values may differ, as a grid-stride loop's
  /// do); nullopt after refusing a loop whose trip counts differ.
  std::optional<Frame> enter(std::size_t pc, const ForOp& f) {
    Frame fr{pc, 0, 0, {}, {}};
    for (std::size_t r = 0; r < bids_.size(); ++r) {
      const ExprEnv& env = envs_[thread(r, 0)];
      const auto start = eval(*f.start.value, env);
      const auto stop = eval(*f.stop.value, env);
      const auto step = eval(*f.step.value, env);
      if (!start || !stop || !step || *step < 1)
        return std::nullopt; // the loop checks report it
      const std::int64_t trips = *start < *stop ? (*stop - *start - 1) / *step + 1 : 0;
      if (r > 0 && trips != fr.trips) {
        error(pc, k_.ops[pc].pos, 1,
              "CTA " + std::to_string(bids_[r]) + " runs this loop " + std::to_string(trips) +
                  " times and CTA " + std::to_string(bids_.front()) + " of its cluster " +
                  std::to_string(fr.trips) +
                  ": the refill proof walks a cluster's CTAs in step, iteration by iteration; "
                  "give the loop the same trip count in every CTA of a cluster");
        return std::nullopt;
      }
      fr.trips = trips;
      fr.start.push_back(*start);
      fr.step.push_back(*step);
    }
    return fr;
  }

  void walk() {
    std::vector<Frame> frames;
    std::size_t pc = 0;
    while (pc < k_.ops.size() && !stopped_) {
      if (budget_ <= 0) {
        too_long(pc, "used its budget of " + std::to_string(max_steps_) +
                         " thread-op steps before the end of the kernel: it proves nothing "
                         "past this point; make the grid, the block or the loops' trip "
                         "counts smaller");
        return;
      }
      budget_ -= n_;
      const Op& op = k_.ops[pc];
      if (const auto* f = std::get_if<ForOp>(&op.body)) {
        auto frame = enter(pc, *f);
        if (!frame)
          return;
        if (frame->trips == 0) {
          pc = f->end + 1;
          continue;
        }
        set_loop(f->var.value, *frame);
        frames.push_back(std::move(*frame));
        ++pc;
        continue;
      }
      if (std::holds_alternative<EndOp>(op.body)) {
        Frame& fr = frames.back();
        const auto& f = std::get<ForOp>(k_.ops[fr.for_op].body);
        if (++fr.iteration < fr.trips) {
          set_loop(f.var.value, fr);
          pc = fr.for_op + 1;
        } else {
          for (auto& env : envs_)
            env.loops.erase(f.var.value);
          frames.pop_back();
          ++pc;
        }
        continue;
      }
      std::visit([&](const auto& body) { this->exec(pc, op, body); }, op.body);
      ++pc;
    }
  }

  void error(std::size_t op, const SourcePos& pos, std::uint32_t length, const std::string& msg) {
    if (reported_.insert(op).second)
      out_.add(diagnostic_at(DiagId::contract_multicast_refill, pos, msg, length));
  }

  bool issues(const std::optional<Located<ExprPtr>>& pred, const ExprEnv& env) {
    if (!pred)
      return true;
    const auto p = eval(*pred->value, env);
    return p && *p != 0;
  }

  /// Every thread of `group` (threads of the cluster) learns what any of them knows.
  void join_all(const std::vector<std::size_t>& group) {
    if (group.empty())
      return;
    budget_ -= 2 * static_cast<std::int64_t>(group.size()) * n_;
    Clock all = clocks_[group.front()];
    for (const std::size_t g : group)
      join(all, clocks_[g]);
    for (const std::size_t g : group)
      clocks_[g] = all;
  }

  std::vector<std::size_t> cta_threads(std::size_t rank) const {
    std::vector<std::size_t> out;
    for (std::int64_t t = 0; t < block(); ++t)
      out.push_back(thread(rank, t));
    return out;
  }

  // ------------------------------------------------------------------ ordering ops
  void exec(std::size_t, const Op&, const CtaSyncOp&) {
    for (std::size_t r = 0; r < bids_.size(); ++r)
      join_all(cta_threads(r));
  }

  /// A relaxed cluster_sync orders no memory (as the mbarrier walk takes it).
  void exec(std::size_t, const Op&, const ClusterSyncOp& c) {
    if (c.relaxed)
      return;
    std::vector<std::size_t> everyone(static_cast<std::size_t>(n_));
    for (std::size_t g = 0; g < everyone.size(); ++g)
      everyone[g] = g;
    join_all(everyone);
  }

  /// bar.sync joins the threads that meet at this op; a bar.arrive waits for nothing, and the
  /// syncing threads it releases elsewhere learn nothing from it here (less known: sound).
  void exec(std::size_t, const Op&, const NamedBarrierOp& b) {
    if (b.arrive)
      return;
    for (std::size_t r = 0; r < bids_.size(); ++r) {
      std::vector<std::size_t> group;
      for (std::int64_t t = 0; t < block(); ++t)
        if (issues(b.pred, envs_[thread(r, t)]))
          group.push_back(thread(r, t));
      join_all(group);
    }
  }

  // ------------------------------------------------------------------ mbarriers
  std::optional<BarrierKey> key_of(const View& v, const ExprEnv& env) {
    note(v);
    const std::vector<std::int64_t> zeros(v.rank(), 0);
    const auto off = v.byte_offset(zeros, env);
    if (!off)
      return std::nullopt;
    return BarrierKey{v.tensor, *off};
  }

  void exec(std::size_t, const Op&, const MbarrierInitOp& m) {
    for (std::size_t r = 0; r < bids_.size(); ++r) {
      const auto key = key_of(m.barrier.value, envs_[thread(r, 0)]);
      if (!key)
        continue;
      const Clock zero(static_cast<std::size_t>(n_), 0);
      barriers_[r][*key] = Phases{m.count.value, 0, zero, zero};
    }
  }

  /// Thread g arrives on the barrier at `key` of CTA `rank`.
  void arrive(std::size_t rank, const std::optional<BarrierKey>& key, std::size_t g) {
    if (!key || rank >= barriers_.size())
      return;
    const auto it = barriers_[rank].find(*key);
    if (it == barriers_[rank].end())
      return; // the mbarrier walk refuses a use before the init
    Phases& p = it->second;
    budget_ -= n_;
    join(p.gathering, clocks_[g]);
    if (++p.arrived < p.count)
      return;
    p.arrived = 0;
    p.released = std::move(p.gathering);
    p.gathering.assign(static_cast<std::size_t>(n_), 0);
  }

  void exec(std::size_t, const Op&, const MbarrierArriveOp& m) {
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t) {
        const std::size_t g = thread(r, t);
        if (!issues(m.pred, envs_[g]))
          continue;
        std::size_t to = r;
        if (m.barrier.value.peer) {
          const auto rank = eval(*m.barrier.value.peer, envs_[g]);
          if (!rank || *rank < 0)
            continue; // contract_peer_rank's
          to = static_cast<std::size_t>(*rank);
        }
        arrive(to, key_of(m.barrier.value, envs_[g]), g);
      }
  }

  void exec(std::size_t, const Op&, const ExpectTxOp& e) {
    if (!e.arrive)
      return;
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t) {
        const std::size_t g = thread(r, t);
        if (issues(e.pred, envs_[g]))
          arrive(r, key_of(e.barrier.value, envs_[g]), g);
      }
  }

  /// With noinc the deferred arrival is one of the count; it carries what the thread knew
  /// when it issued it (as the mbarrier walk takes it).
  void exec(std::size_t, const Op&, const CopyArriveOp& c) {
    if (!c.noinc)
      return;
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t)
        arrive(r, key_of(c.barrier.value, envs_[thread(r, t)]), thread(r, t));
  }

  void exec(std::size_t, const Op&, const MbarrierWaitOp& m) {
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t) {
        const std::size_t g = thread(r, t);
        if (!issues(m.pred, envs_[g]))
          continue;
        const auto key = key_of(m.barrier.value, envs_[g]);
        const auto it = key ? barriers_[r].find(*key) : barriers_[r].end();
        if (it == barriers_[r].end())
          continue;
        budget_ -= n_;
        join(clocks_[g], it->second.released);
      }
  }

  // ------------------------------------------------------------------ reads and refills
  /// A copy's read of a multicast destination (its own CTA's, or a peer's through `S@rank`).
  void exec(std::size_t index, const Op&, const CopyOp& c) {
    const View& src = c.src.value;
    if (targets_.count(src.tensor) == 0)
      return;
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t) {
        const std::size_t g = thread(r, t);
        if (!issues(c.pred, envs_[g]))
          continue;
        std::size_t of = r;
        if (src.peer) {
          const auto rank = eval(*src.peer, envs_[g]);
          if (!rank || *rank < 0 || static_cast<std::size_t>(*rank) >= bids_.size())
            continue; // contract_peer_rank's
          of = static_cast<std::size_t>(*rank);
        }
        const auto s = span(src, envs_[g]);
        if (s)
          record(of, {s->tensor, s->lo, s->hi, static_cast<std::int64_t>(g)}, clocks_[g][g]++,
                 index);
      }
  }

  /// A read by thread get<3>(key) of CTA `rank`; a pending store read of the same bytes by the
  /// same thread stays pending (a thread's epochs only grow: the later one stands).
  void record(std::size_t rank, const ReadKey& key, std::int32_t epoch, std::size_t index) {
    const auto g = static_cast<std::size_t>(std::get<3>(key));
    Read& read = reads_[rank][key];
    read = Read{std::max(read.epoch, epoch), index, loops_text(envs_[g])};
  }

  /// A bulk or tensor store (or reduction) reads `src` of its own CTA until a bulk_wait of the
  /// issuing thread retires its group.
  void store_read(std::size_t index, const Located<View>& src,
                  const std::optional<Located<ExprPtr>>& pred) {
    if (targets_.count(src.value.tensor) == 0)
      return;
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t) {
        const std::size_t g = thread(r, t);
        const auto s = issues(pred, envs_[g]) ? span(src.value, envs_[g]) : std::nullopt;
        if (!s)
          continue;
        const ReadKey key{s->tensor, s->lo, s->hi, static_cast<std::int64_t>(g)};
        record(r, key, pending, index);
        open_[g].emplace_back(r, key);
      }
  }

  void exec(std::size_t index, const Op&, const BulkStoreOp& b) {
    store_read(index, b.src, b.pred);
  }
  void exec(std::size_t index, const Op&, const BulkReduceOp& b) {
    store_read(index, b.src, b.pred);
  }
  void exec(std::size_t index, const Op&, const TensorStoreOp& t) {
    store_read(index, t.src, t.pred);
  }
  void exec(std::size_t index, const Op&, const TensorReduceOp& t) {
    store_read(index, t.src, t.pred);
  }

  void exec(std::size_t, const Op&, const BulkCommitOp&) {
    for (std::size_t g = 0; g < open_.size(); ++g)
      if (!open_[g].empty())
        groups_[g].push_back(std::exchange(open_[g], {}));
  }

  /// The thread's groups but the newest n are done reading: their reads take the thread's
  /// epoch now, which its later arrivals carry.
  void exec(std::size_t, const Op&, const BulkWaitOp& w) {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      auto& groups = groups_[g];
      if (static_cast<std::int64_t>(groups.size()) <= w.n)
        continue;
      const auto retired = groups.size() - static_cast<std::size_t>(w.n);
      for (std::size_t i = 0; i < retired; ++i)
        for (const auto& [rank, key] : groups[i]) {
          const auto it = reads_[rank].find(key);
          if (it != reads_[rank].end() && it->second.epoch == pending)
            it->second.epoch = clocks_[g][g];
        }
      groups.erase(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(retired));
      ++clocks_[g][g];
    }
  }

  void exec(std::size_t index, const Op& op, const BulkLoadOp& b) {
    if (b.multicast)
      refill(index, op, b.dst, b.pred, *b.multicast->value);
  }

  void exec(std::size_t index, const Op& op, const TensorLoadOp& t) {
    if (t.multicast)
      refill(index, op, t.dst, t.pred, *t.multicast->value);
  }

  /// Each issuing thread's multicast lands in dst's bytes of every CTA of its mask.
  void refill(std::size_t index, const Op& op, const Located<View>& dst,
              const std::optional<Located<ExprPtr>>& pred, const Expr& mask) {
    for (std::size_t r = 0; r < bids_.size(); ++r)
      for (std::int64_t t = 0; t < block(); ++t) {
        const std::size_t g = thread(r, t);
        if (!issues(pred, envs_[g]))
          continue;
        const auto m = eval(mask, envs_[g]);
        const auto s = span(dst.value, envs_[g]);
        if (!m || !s)
          continue; // contract_multicast_mask's, the view checks'
        for (std::size_t y = 0; y < bids_.size(); ++y)
          if (((*m >> y) & 1) != 0)
            land(index, op, dst, g, y, *s);
      }
  }

  /// The multicast of thread g lands in bytes `s` of the CTA of rank y: every read of them
  /// since their last multicast must be known done by g.
  void land(std::size_t index, const Op& op, const Located<View>& dst, std::size_t g, std::size_t y,
            const Span& s) {
    auto& reads = reads_[y];
    budget_ -= static_cast<std::int64_t>(reads.size());
    for (auto it = reads.begin(); it != reads.end();) {
      const auto& [tensor, lo, hi, reader] = it->first;
      if (tensor != s.tensor || hi <= s.lo || s.hi <= lo) {
        ++it;
        continue;
      }
      if (clocks_[g][static_cast<std::size_t>(reader)] <= it->second.epoch)
        unordered(index, op, dst, g, y, s, static_cast<std::size_t>(reader), it->second);
      it = reads.erase(it);
    }
  }

  /// "the copy at line 95"; a pipeline's op by its role.
  std::string op_at(std::size_t index) const {
    const Op& op = k_.ops[index];
    if (op.origin.role != OpOrigin::Role::written || k_.built_in_code || op.pos.line == 0)
      return op_label(k_, index);
    return "the " + std::string(op_kind(op.body)) + " at line " + std::to_string(op.pos.line);
  }

  std::string who(std::size_t g) const {
    const std::size_t rank = g / static_cast<std::size_t>(block());
    return "thread " + std::to_string(envs_[g].tid) + " of CTA " + std::to_string(bids_[rank]) +
           " (rank " + std::to_string(rank) + ")";
  }

  void unordered(std::size_t index, const Op& op, const Located<View>& dst, std::size_t g,
                 std::size_t y, const Span& s, std::size_t reader, const Read& read) {
    const std::string cta = "CTA " + std::to_string(bids_[y]);
    const bool own = reader / static_cast<std::size_t>(block()) == y;
    const std::string when = read.loops.empty() ? std::string() : " (" + read.loops.substr(2) + ")";
    const std::string head = who(g) + loops_text(envs_[g]) + params_text(envs_[g]) + ": the " +
                             std::string(op_kind(op.body)) + " (multicast) refills bytes " +
                             std::to_string(s.lo) + ".." + std::to_string(s.hi - 1) + " of '" +
                             s.tensor->name + "' in " + cta + " (the stage '" + dst.text +
                             "'), which " + who(reader);
    const std::string order =
        "the issuing thread did not wait for a barrier phase that the reader (or a thread of " +
        (own ? cta : "its CTA") +
        " after a cta_sync that follows the read) arrived on, nor pass a cluster_sync after it";
    const auto length = static_cast<std::uint32_t>(std::max<std::size_t>(dst.text.size(), 1));
    if (read.epoch == pending) {
      error(index, dst.pos, length,
            head + " still reads through " + op_at(read.op) + when +
                ": no bulk_wait of that thread has retired the store's group, so "
                "the bytes may land while the store reads them; retire it (bulk_wait, read = "
                "true) before the refill, and order that wait before the issue (" +
                order + ")");
      return;
    }
    error(index, dst.pos, length,
          head + " read at " + op_at(read.op) + when +
              ", but nothing orders that read before the issue: " + order +
              ", so the bytes may land while " + cta +
              "'s consumers still read the stage; the refill must wait for the consumers of "
              "every receiving CTA: let them arrive on the issuer's empty barrier "
              "(mbarrier_arrive on 'empty@(rank)'), counted in its mbarrier_init");
  }

  // Ops that order nothing and read no multicast destination for this rule.
  template <PlainOp P>
  void exec(std::size_t, const Op&, const P&) {}
  void exec(std::size_t, const Op&, const ApplyOp&) {}
  void exec(std::size_t, const Op&, const WaitGroupOp&) {}
  void exec(std::size_t, const Op&, const FillOp&) {}
  void exec(std::size_t, const Op&, const SetmaxnregOp&) {}
  void exec(std::size_t, const Op&, const ForOp&) {}
  void exec(std::size_t, const Op&, const EndOp&) {}
  // A tensor map's edits and copies touch its 128-byte slot, never a multicast's stage.
  void exec(std::size_t, const Op&, const TensormapCopyOp&) {}
  void exec(std::size_t, const Op&, const TensormapReplaceOp&) {}
  void exec(std::size_t, const Op&, const TensormapFenceOp&) {}
  void exec(std::size_t, const Op&, const PrefetchTensormapOp&) {}
  void exec(std::size_t, const Op&, const BulkCopyPeerOp&) {}
};

} // namespace multicast_refill

void check_multicast_refill(const Kernel& k, Diagnostics& out, std::int64_t max_steps,
                            std::span<const std::uint64_t> values) {
  multicast_refill::RefillWalk(k, out, max_steps, values).run();
}

} // namespace ptxgen::tile
