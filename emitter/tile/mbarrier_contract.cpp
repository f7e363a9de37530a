#include "emitter/tile/mbarrier_contract.hpp"

#include "emitter/ptx/validator.hpp"
#include "emitter/tile/bulk_contract.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/mbarrier_state.hpp"
#include "emitter/tile/multicast_contract.hpp"
#include "emitter/tile/multicast_refill.hpp"
#include "emitter/tile/op_table.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ptxgen::tile {

namespace {

using mbarrier_walk::Barrier;
using mbarrier_walk::BarrierKey;
using mbarrier_walk::Knowledge;
using mbarrier_walk::learn;
using mbarrier_walk::LooseExpect;
using mbarrier_walk::no_phase;

struct Frame {
  std::size_t for_op = 0;
  std::int64_t stop = 0;
  std::int64_t step = 1;
};

class Walk {
public:
  Walk(const Kernel& k, Diagnostics& out, std::int64_t max_steps,
       std::span<const std::uint64_t> values)
      : k_(k), out_(out), budget_(max_steps), max_steps_(max_steps), values_(values) {}

  void run() {
    for (std::int64_t b = 0; b < k_.grid && !stopped_; ++b) {
      if (budget_ <= 0) {
        too_long(b, 0);
        return;
      }
      run_cta(b);
    }
  }

private:
  const Kernel& k_;
  Diagnostics& out_;
  std::int64_t budget_;
  std::int64_t max_steps_;
  std::span<const std::uint64_t> values_; ///< the parameters' values; empty: the test values
  std::set<std::pair<DiagId, std::size_t>> reported_;
  std::vector<ExprEnv> envs_;
  std::map<BarrierKey, Barrier> barriers_;
  std::vector<Knowledge> known_; ///< per thread of the CTA
  std::int64_t bid_ = 0;
  bool hung_ = false;    ///< a wait of this CTA hangs: the walk of the CTA ends there
  bool stopped_ = false; ///< the budget ran out before the end of the kernel

  /// The walk proves nothing past the point where its budget ran out: it refuses the
  /// kernel there rather than accept what it did not see.
  void too_long(std::int64_t b, std::size_t pc) {
    stopped_ = true;
    const std::size_t at = std::min(pc, k_.ops.size() - 1);
    error(DiagId::contract_mbarrier_too_long, at, k_.ops[at].pos, 1,
          "the mbarrier contract's walk used its budget of " + std::to_string(max_steps_) +
              " thread-op steps before the end of the kernel (CTA " + std::to_string(b) +
              " at this op): it proves nothing past this point; make the grid, the block or "
              "the loops' trip counts smaller");
  }

  void error(DiagId id, std::size_t op, const SourcePos& pos, std::uint32_t length,
             const std::string& msg) {
    // A ring pipeline derives every wait's parity from one use count (ring_offset + (tile -
    // start)): one wrong parity is one cause for the whole expansion, reported once.
    const bool ring_parity =
        id == DiagId::contract_mbarrier_parity && k_.ops[op].origin.role != OpOrigin::Role::written;
    if (!reported_.insert({id, ring_parity ? expansion_of(op) : op}).second)
      return;
    out_.add(diagnostic_at(id, pos,
                           ring_parity ? msg + " (the pipeline derives the parity of each of its "
                                               "waits from the ring's use of the tile, ring_offset "
                                               "+ (tile - start): check ring_offset, the tiles the "
                                               "ring carried before; its other waits are not "
                                               "reported again)"
                                       : msg,
                           length));
  }

  /// The first op of the pipeline expansion op `index` belongs to.
  std::size_t expansion_of(std::size_t index) const {
    while (index > 0 && !k_.ops[index].origin.opens)
      --index;
    return index;
  }

  static std::uint32_t len(const std::string& text) {
    return static_cast<std::uint32_t>(std::max<std::size_t>(text.size(), 1));
  }

  /// "" for an op the user wrote; for an op a pipeline expanded into, its role ("the
  /// pipeline's consumer's wait for its tile on 'full.sub[stage]' (pipeline at line 9): ").
  std::string role_of(std::size_t index) const {
    if (k_.ops[index].origin.role == OpOrigin::Role::written)
      return {};
    return op_label(k_, index) + ": ";
  }

  /// "CTA 0, thread 5, k=3": where a finding happened.
  std::string where(std::int64_t tid) const {
    std::string s = "CTA " + std::to_string(bid_) + ", thread " + std::to_string(tid);
    for (const auto& [name, value] : envs_[0].loops)
      s += ", " + name + "=" + std::to_string(value);
    return s;
  }

  void run_cta(std::int64_t b) {
    bid_ = b;
    barriers_.clear();
    known_.assign(static_cast<std::size_t>(k_.block), Knowledge{});
    envs_.clear();
    for (std::int64_t t = 0; t < k_.block; ++t)
      envs_.push_back(k_.env_for(b, t, values_));
    std::vector<Frame> frames;
    std::size_t pc = 0;
    hung_ = false;
    while (pc < k_.ops.size() && budget_ > 0 && !hung_) {
      const Op& op = k_.ops[pc];
      if (const auto* f = std::get_if<ForOp>(&op.body)) {
        const auto start = evaluate(*f->start.value, envs_[0]);
        const auto stop = evaluate(*f->stop.value, envs_[0]);
        const auto step = evaluate(*f->step.value, envs_[0]);
        if (!start || !stop || !step || *step < 1)
          return; // the loop checks report it
        if (*start >= *stop) {
          pc = f->end + 1;
          continue;
        }
        set_loop(f->var.value, *start);
        frames.push_back({pc, *stop, *step});
        ++pc;
        continue;
      }
      if (std::holds_alternative<EndOp>(op.body)) {
        budget_ -= k_.block; // an iteration without ops still costs: the walk must end
        Frame& fr = frames.back();
        const auto& f = std::get<ForOp>(k_.ops[fr.for_op].body);
        const std::int64_t next = envs_[0].loops[f.var.value] + fr.step;
        if (next < fr.stop) {
          set_loop(f.var.value, next);
          pc = fr.for_op + 1;
        } else {
          for (auto& env : envs_)
            env.loops.erase(f.var.value);
          frames.pop_back();
          ++pc;
        }
        continue;
      }
      step(pc, op);
      budget_ -= k_.block;
      ++pc;
    }
    // After a hang nothing else runs: the phase it waits for is the one the hang names.
    if (hung_)
      return;
    if (pc < k_.ops.size()) {
      too_long(b, pc);
      return;
    }
    check_multicast_exit();
    for (const auto& [key, bar] : barriers_) {
      const bool tx = bar.expects || bar.delivered != 0;
      if (bar.initialised && tx && (bar.arrivals_done() || bar.arrived == 0)) {
        tx_error(bar.last_tx_op, key.first->name + "' (byte " + std::to_string(key.second) + ")",
                 bar, "CTA " + std::to_string(bid_) + ": the kernel ends with");
        continue;
      }
      if (bar.initialised && bar.arrived != 0) {
        const Op& op = k_.ops[bar.last_arrival_op];
        error(DiagId::contract_mbarrier_count, bar.last_arrival_op, op.pos, 1,
              "CTA " + std::to_string(bid_) + ": the kernel ends with phase " +
                  std::to_string(bar.completed) + " of barrier '" + key.first->name + "' (byte " +
                  std::to_string(key.second) + ") holding " + std::to_string(bar.arrived) +
                  " of its " + std::to_string(bar.count) + " arrivals");
      }
    }
  }

  void set_loop(const std::string& var, std::int64_t value) {
    for (auto& env : envs_)
      env.loops[var] = value;
  }

  std::optional<BarrierKey> key_of(const Located<View>& v, std::int64_t tid) const {
    const std::vector<std::int64_t> zeros(v.value.rank(), 0);
    const auto off = v.value.byte_offset(zeros, envs_[static_cast<std::size_t>(tid)]);
    if (!off)
      return std::nullopt;
    return BarrierKey{v.value.tensor, *off};
  }

  /// The barrier of a use (arrive, wait) by `tid`, or nullptr after reporting a use
  /// before its init and the cta_sync after it.
  Barrier* used(std::size_t op, const Located<View>& v, std::int64_t tid) {
    const auto key = key_of(v, tid);
    if (!key)
      return nullptr;
    auto it = barriers_.find(*key);
    const bool inited = it != barriers_.end() && it->second.initialised;
    // Thread 0 initialised it: its own later uses follow the init in program order, and an
    // mbarrier_init_fence makes the init visible to the async proxy that completes its tx.
    const bool own_fenced = inited && tid == 0 && it->second.init_fenced;
    if (!inited || (!it->second.synced && !own_fenced)) {
      const std::string why =
          tid == 0 ? " (every thread uses a barrier only after the cta_sync that follows its "
                     "mbarrier_init; thread 0, which initialises it, may instead use it after "
                     "an mbarrier_init_fence)"
                   : " (thread 0 initialises it; the other threads must not touch it before "
                     "a cta_sync)";
      error(DiagId::contract_mbarrier_uninit, op, v.pos, len(v.text),
            where(tid) + ": barrier '" + v.text + "' is used " +
                (inited ? "after its mbarrier_init without a cta_sync in between" + why
                        : "before any mbarrier_init of it"));
      return nullptr;
    }
    it->second.used_since_sync = true;
    return &it->second;
  }

  void step(std::size_t index, const Op& op) {
    std::visit([&](const auto& body) { this->exec(index, op, body); }, op.body);
  }

  void exec(std::size_t index, const Op& op, const MbarrierInitOp& m) {
    const auto key = key_of(m.barrier, 0);
    if (!key)
      return;
    Barrier& bar = barriers_[*key];
    // PTX leaves mbarrier.init of a valid mbarrier object undefined (mbarrier.inval must
    // come first, and ptxgen has no inval op): one init per barrier object.
    if (bar.initialised) {
      error(DiagId::contract_mbarrier_reuse, index, op.pos, 1,
            "CTA " + std::to_string(bid_) + ": barrier '" + m.barrier.text +
                "' is initialised again" +
                (bar.arrived != 0 ? " while its phase " + std::to_string(bar.completed) +
                                        " holds " + std::to_string(bar.arrived) + " of " +
                                        std::to_string(bar.count) + " arrivals"
                                  : std::string()) +
                ": mbarrier.init of a valid mbarrier object is undefined in PTX (it needs "
                "mbarrier.inval first, which specs cannot write); use another barrier object");
    }
    bar = Barrier{};
    bar.key = *key;
    bar.initialised = true;
    bar.count = m.count.value;
    bar.arrival.assign(static_cast<std::size_t>(k_.block), no_phase);
    bar.increment.assign(static_cast<std::size_t>(k_.block), no_phase);
    bar.expected_by.assign(static_cast<std::size_t>(k_.block), no_phase);
    bar.loose.assign(static_cast<std::size_t>(k_.block), LooseExpect{});
  }

  void exec(std::size_t, const Op&, const CtaSyncOp&) {
    share_knowledge([](std::int64_t) { return true; });
    for (auto& [key, bar] : barriers_) {
      bar.synced = bar.initialised;
      bar.used_since_sync = false;
      bar.expects_synced = bar.expects;
      if (bar.loose_count == 0)
        continue;
      for (LooseExpect& x : bar.loose)
        x.synced = x.phase != no_phase;
      bar.loose_synced = true;
    }
  }

  /// The threads for which `meets` holds meet at a barrier: each learns what any of them knew.
  template <class Meets>
  void share_knowledge(const Meets& meets) {
    Knowledge all;
    for (std::int64_t t = 0; t < k_.block; ++t)
      if (meets(t))
        learn(all, known_[static_cast<std::size_t>(t)]);
    for (std::int64_t t = 0; t < k_.block; ++t)
      if (meets(t))
        learn(known_[static_cast<std::size_t>(t)], all);
  }

  /// Per barrier, the phases one op has completed so far (an op's threads may each name
  /// their own barrier, e.g. one per warp).
  using Completions = std::map<const Barrier*, std::int64_t>;

  /// One arrival of `tid` on `bar` in op `index`: `completions` counts the phases this
  /// op has completed so far (an arrival after one of them is one too many).
  void arrive(std::size_t index, const Op& op, const Located<View>& v, Barrier& bar,
              std::int64_t tid, Completions& completions) {
    std::int64_t& completed_here = completions[&bar];
    auto& mine = bar.arrival[static_cast<std::size_t>(tid)];
    if (completed_here > 0) {
      error(DiagId::contract_mbarrier_count, index, op.pos, 1,
            where(tid) + ": phase " + std::to_string(bar.completed - 1) + " of barrier '" + v.text +
                "' already has its " + std::to_string(bar.count) +
                " arrivals and this op gives more: the extra ones fall into the next phase "
                "(count the arrivals of one phase: each mbarrier_arrive thread, each "
                "copy_arrive with noinc)");
      return;
    }
    if (bar.arrivals_done()) {
      error(DiagId::contract_mbarrier_count, index, op.pos, 1,
            where(tid) + ": phase " + std::to_string(bar.completed) + " of barrier '" + v.text +
                "' already has its " + std::to_string(bar.count) +
                " arrivals (it waits for its transaction bytes: " + tx_totals(bar) +
                ") and this op gives more: count the arrivals of one phase");
      return;
    }
    auto& knows = known_[static_cast<std::size_t>(tid)];
    if (mine != no_phase && knows[bar.key] > mine)
      mine = no_phase; // it knows that phase completed: as good as having waited for it
    if (mine != no_phase && mine != bar.completed) {
      error(DiagId::contract_mbarrier_reuse, index, op.pos, 1,
            where(tid) + ": the thread arrives on barrier '" + v.text +
                "' again before waiting for phase " + std::to_string(mine) +
                " of its previous arrival, which has completed, or for a phase of another "
                "barrier released after that completion (if both arrivals are meant for "
                "one phase, the count is too small: with noinc, a copy_arrive's deferred "
                "arrival is one of the count)");
      return;
    }
    // A first arrival in phase P > 0 needs the same: a thread that does not know phase P-1
    // completed may arrive while it is open, and its arrival count there. An expect_tx's
    // arrival is checked with its bytes (check_expect_after_previous).
    if (mine == no_phase && bar.completed > 0 && knows[bar.key] < bar.completed &&
        !std::holds_alternative<ExpectTxOp>(op.body)) {
      const std::string before = std::to_string(bar.completed - 1);
      error(DiagId::contract_mbarrier_reuse, index, op.pos, 1,
            where(tid) + ": " + role_of(index) + "the thread's first arrival on barrier '" +
                v.text + "' comes in phase " + std::to_string(bar.completed) +
                ", but it does not know that phase " + before +
                " completed (it did not wait for it, nor for a phase of another barrier "
                "released after it): in another order of the threads it arrives while phase " +
                before + " is still open, which it then completes early; wait for phase " + before +
                " (parity " + std::to_string((bar.completed - 1) % 2) + ") before it");
    }
    mine = bar.completed;
    learn(bar.gathering, knows);
    bar.increment[static_cast<std::size_t>(tid)] = no_phase;
    bar.last_arrival_op = index;
    ++bar.arrived;
    cover_loose(bar, tid);
    if (settle(index, tid, v, bar))
      ++completed_here;
  }

  /// An arrival of thread `tid` on `bar` follows the thread's own expect_tx without arrival,
  /// and every one a cta_sync followed.
  static void cover_loose(Barrier& bar, std::int64_t tid) {
    if (bar.loose[static_cast<std::size_t>(tid)].phase != no_phase) {
      bar.loose[static_cast<std::size_t>(tid)] = LooseExpect{};
      --bar.loose_count;
    }
    if (bar.loose_synced) {
      for (LooseExpect& x : bar.loose)
        if (x.synced) {
          x = LooseExpect{};
          --bar.loose_count;
        }
      bar.loose_synced = false;
    }
  }

  /// Completes the current phase of `bar` when it is settled (by thread `tid`'s op
  /// `index`); true when it did.
  bool settle(std::size_t index, std::int64_t tid, const Located<View>& v, Barrier& bar) {
    if (!bar.settled())
      return false;
    complete(index, tid, v, bar);
    return true;
  }

  static std::string tx_totals(const Barrier& bar) {
    return std::to_string(bar.expected) + " bytes expected by expect_tx, " +
           std::to_string(bar.delivered) + " delivered by its loads";
  }

  /// A phase whose transaction bytes do not settle, reported at op `at` as "`lead` phase P
  /// of barrier '`name`...".
  void tx_error(std::size_t at, const std::string& name, const Barrier& bar,
                const std::string& lead) {
    const bool all = bar.arrivals_done();
    error(DiagId::contract_mbarrier_tx, at, k_.ops[at].pos, 1,
          lead + " phase " + std::to_string(bar.completed) + " of barrier '" + name + " holding " +
              (all ? "all " + std::to_string(bar.count) : std::string("none")) +
              " of its arrivals and " + tx_totals(bar) + ": " +
              (!all ? "its loads are never waited for"
               : bar.delivered < bar.expected
                   ? "the phase never completes (a hang)"
                   : "the phase may complete before all its bytes land (an early completion), "
                     "the rest falling into the next phase") +
              " (each phase's expect_tx bytes must equal the bytes its loads deliver)");
  }

  /// How a message names op `index`: "the mbarrier_arrive at line 53", or a pipeline's op by
  /// its role.
  std::string op_at(std::size_t index) const {
    const Op& op = k_.ops[index];
    if (op.origin.role != OpOrigin::Role::written || k_.built_in_code || op.pos.line == 0)
      return op_label(k_, index);
    return "the " + std::string(op_kind(op.body)) + " at line " + std::to_string(op.pos.line);
  }

  /// The current phase of `bar` completes at thread `tid`'s op `index`: an expect_tx without
  /// arrival that no arrival of the phase follows in every order of the threads may run
  /// after that completion, its bytes falling into the next phase.
  void check_loose_expects(std::size_t index, std::int64_t tid, const Located<View>& v,
                           Barrier& bar) {
    if (bar.loose_count == 0)
      return;
    bar.loose_count = 0;
    bar.loose_synced = false;
    for (std::size_t t = 0; t < bar.loose.size(); ++t) {
      const LooseExpect x = bar.loose[t];
      bar.loose[t] = LooseExpect{};
      if (x.phase == no_phase)
        continue;
      const std::string phase = std::to_string(bar.completed);
      error(DiagId::contract_mbarrier_tx_unordered, x.op, k_.ops[x.op].pos, 1,
            where(static_cast<std::int64_t>(t)) + ": " + role_of(x.op) +
                "the expect_tx (arrive = false) at line " + std::to_string(k_.ops[x.op].pos.line) +
                " adds " + std::to_string(x.bytes) + " transaction bytes to phase " + phase +
                " of barrier '" + v.text +
                "', but no arrival of the phase is ordered after it, and " + op_at(index) +
                " (thread " + std::to_string(tid) +
                ") completes the phase: in another order of the threads the phase completes "
                "first, with its transaction count short of these bytes, which then go to phase " +
                std::to_string(bar.completed + 1) +
                " (an early completion, then a hang or a wrong count); let the thread arrive "
                "after its expect_tx (arrive = true, or an mbarrier_arrive of its own) or put a "
                "cta_sync between the expect_tx and an arrival of the phase");
    }
  }

  /// An expect_tx of thread `t` in phase P > 0 must run after phase P-1 completed in every
  /// order of the threads: the thread knows it did (it waited for it, or for a phase released
  /// after it). Otherwise it may run while phase P-1 is open and add its bytes there. A thread
  /// that arrives again with it is the reuse rule's (arrive()).
  void check_expect_after_previous(std::size_t index, const Op& op, const ExpectTxOp& e,
                                   const Barrier& bar, std::int64_t t, std::int64_t bytes) {
    const auto tu = static_cast<std::size_t>(t);
    if (bar.completed == 0 || (e.arrive && bar.arrival[tu] != no_phase))
      return;
    const Knowledge& knows = known_[tu];
    const auto it = knows.find(bar.key);
    if (it != knows.end() && it->second >= bar.completed)
      return;
    const std::string before = std::to_string(bar.completed - 1);
    // The thread's own arrival in phase P-1 came first: the bytes were meant for that phase.
    const bool own_arrival_first = bar.arrival[tu] == bar.completed - 1;
    const std::string fix =
        own_arrival_first
            ? "; the thread's own arrival in phase " + before +
                  " came before it: put the expect_tx before that arrival (or make it the "
                  "arrival, arrive = true) for its bytes to count in phase " +
                  before
            : "; wait for phase " + before + " (parity " + std::to_string((bar.completed - 1) % 2) +
                  ") before it";
    error(DiagId::contract_mbarrier_tx_unordered, index, op.pos, 1,
          where(t) + ": " + role_of(index) + "the expect_tx adds " + std::to_string(bytes) +
              " transaction bytes to phase " + std::to_string(bar.completed) + " of barrier '" +
              e.barrier.text + "', but its thread does not know that phase " + before +
              " completed (it did not wait for it, nor for a phase of another barrier released "
              "after it): in another order of the threads it runs while phase " +
              before + " is still open and its bytes go there (a hang, or an early completion)" +
              fix);
  }

  /// The current phase of `bar` completes at op `index`: a copy_arrive without noinc whose
  /// thread has not arrived since could have raised the pending count after the completion
  /// (in any order of the threads), so its copies are not covered by the phase.
  void complete(std::size_t index, std::int64_t tid, const Located<View>& v, Barrier& bar) {
    check_loose_expects(index, tid, v, bar);
    for (std::size_t t = 0; t < bar.increment.size(); ++t) {
      if (bar.increment[t] != bar.completed)
        continue;
      const Op& op = k_.ops[bar.increment_op];
      error(DiagId::contract_mbarrier_count, bar.increment_op, op.pos, 1,
            where(static_cast<std::int64_t>(t)) + ": the copy_arrive (without noinc) on barrier '" +
                v.text + "' is not followed by an arrival of the same thread in phase " +
                std::to_string(bar.completed) + ", which " + op_label(k_, index) +
                " completes: in another order of the threads the phase completes before its "
                "increment, so its copies are not waited for (let the thread arrive after it, "
                "or use noinc and count its arrival)");
      bar.increment[t] = no_phase;
      break;
    }
    bar.arrived = 0;
    bar.expected = bar.delivered = 0;
    bar.expects = bar.expects_synced = false;
    ++bar.completed;
    bar.released = std::move(bar.gathering);
    bar.gathering.clear();
    auto& self = bar.released[bar.key];
    self = std::max(self, bar.completed);
  }

  void exec(std::size_t index, const Op& op, const CopyArriveOp& m) {
    Completions completed_here;
    for (std::int64_t t = 0; t < k_.block; ++t) {
      Barrier* bar = used(index, m.barrier, t);
      if (!bar)
        return;
      // Without noinc the pending count goes up by one now and down by one at the deferred
      // arrival: no net arrival. With noinc the deferred arrival is one of the count.
      if (m.noinc) {
        arrive(index, op, m.barrier, *bar, t, completed_here);
      } else {
        bar->increment[static_cast<std::size_t>(t)] = bar->completed;
        bar->increment_op = index;
      }
    }
  }

  /// Whether thread t issues an op with `pred` (none: every thread does).
  bool issues(const std::optional<Located<ExprPtr>>& pred, std::int64_t t) const {
    if (!pred)
      return true;
    const auto p = evaluate(*pred->value, envs_[static_cast<std::size_t>(t)]);
    return p && *p != 0;
  }

  void exec(std::size_t index, const Op& op, const MbarrierArriveOp& m) {
    if (m.barrier.value.peer) {
      arrive_from_cluster(index, op, m);
      return;
    }
    Completions completed_here;
    for (std::int64_t t = 0; t < k_.block; ++t) {
      if (!issues(m.pred, t))
        continue;
      Barrier* bar = used(index, m.barrier, t);
      if (!bar)
        return;
      arrive(index, op, m.barrier, *bar, t, completed_here);
    }
  }

  /// Remote arrivals (mbarrier_arrive on `B@rank`): the CTAs of a cluster run the same ops,
  /// so at this op the CTA walked gets one arrival from each issuing thread of its cluster
  /// whose rank names it, on its barrier at the offset that thread names. A peer's arrival
  /// needs the barrier's init published to the cluster; the count rules are the phase's.
  void arrive_from_cluster(std::size_t index, const Op& op, const MbarrierArriveOp& m) {
    const ClusterPlace place = cluster_place(k_, bid_);
    const Located<View>& v = m.barrier;
    Completions completed_here;
    for (const std::int64_t p : place.peers) {
      budget_ -= p == bid_ ? 0 : k_.block;
      for (std::int64_t t = 0; t < k_.block; ++t) {
        ExprEnv env = p == bid_ ? envs_[static_cast<std::size_t>(t)] : k_.env_for(p, t, values_);
        env.loops = envs_[0].loops;
        if (m.pred) {
          const auto q = evaluate(*m.pred->value, env);
          if (!q || *q == 0)
            continue;
        }
        const auto r = evaluate(*v.value.peer, env);
        if (!r || *r != place.rank)
          continue;
        if (p == bid_) {
          Barrier* own = used(index, v, t);
          if (own == nullptr)
            return;
          arrive(index, op, v, *own, t, completed_here);
          continue;
        }
        const std::vector<std::int64_t> zeros(v.value.rank(), 0);
        const auto off = v.value.byte_offset(zeros, env);
        auto it = off ? barriers_.find({v.value.tensor, *off}) : barriers_.end();
        if (it == barriers_.end() || !it->second.published) {
          error(DiagId::contract_remote_arrive_init, index, v.pos, len(v.text),
                "CTA " + std::to_string(bid_) + ": thread " + std::to_string(t) + " of CTA " +
                    std::to_string(p) + " arrives on barrier '" + v.text +
                    "' of this CTA, whose mbarrier_init is not visible to the cluster yet: "
                    "initialise it, then mbarrier_init_fence (fence.mbarrier_init.release."
                    "cluster) and a cluster_sync before the first remote arrival");
          return;
        }
        remote_arrival(index, op, v, it->second, p, t, completed_here);
      }
    }
  }

  /// One arrival of thread `t` of CTA `from` on `bar` of the CTA walked.
  void remote_arrival(std::size_t index, const Op& op, const Located<View>& v, Barrier& bar,
                      std::int64_t from, std::int64_t t, Completions& completions) {
    std::int64_t& completed_here = completions[&bar];
    if (completed_here > 0 || bar.arrivals_done()) {
      const std::int64_t phase = completed_here > 0 ? bar.completed - 1 : bar.completed;
      error(DiagId::contract_mbarrier_count, index, op.pos, 1,
            "CTA " + std::to_string(bid_) + ": thread " + std::to_string(t) + " of CTA " +
                std::to_string(from) + " arrives on phase " + std::to_string(phase) +
                " of barrier '" + v.text + "' of this CTA, which already has its " +
                std::to_string(bar.count) +
                " arrivals: the extra one falls into the next phase (a phase's count is the "
                "arrivals of every CTA that arrives on it)");
      return;
    }
    bar.last_arrival_op = index;
    ++bar.arrived;
    if (settle(index, t, v, bar))
      ++completed_here;
  }

  void exec(std::size_t index, const Op& op, const MbarrierWaitOp& m) {
    for (std::int64_t t = 0; t < k_.block && !hung_; ++t) {
      if (!issues(m.pred, t))
        continue;
      Barrier* bar = used(index, m.barrier, t);
      if (!bar)
        return;
      const auto q = evaluate(*m.parity.value, envs_[static_cast<std::size_t>(t)]);
      if (!q || (*q != 0 && *q != 1)) {
        error(DiagId::contract_mbarrier_parity, index, m.parity.pos, len(m.parity.text),
              where(t) + ": the parity '" + m.parity.text + "' must be 0 or 1; it is " +
                  (q ? std::to_string(*q) : std::string("undefined")));
        return;
      }
      wait_one(index, op, m, *bar, t, *q);
    }
  }

  /// Thread `tid` waits on parity `q` of `bar`. A wait naming the wrong parity is reported
  /// and then taken as the wait the thread needed, so that its arrival is not reported again
  /// as a reuse; a wait that hangs ends the CTA's walk.
  void wait_one(std::size_t index, const Op& op, const MbarrierWaitOp& m, Barrier& bar,
                std::int64_t t, std::int64_t q) {
    auto& mine = bar.arrival[static_cast<std::size_t>(t)];
    const std::int64_t c = bar.completed;
    const std::uint32_t plen = len(m.parity.text);
    // The phase waited for: the thread's own arrival's, else the last completed one.
    const std::int64_t phase = mine != no_phase ? mine : c - 1;
    // The phase in progress has all its arrivals: it waits for its transaction bytes.
    if ((mine == c || (mine == no_phase && q == c % 2)) && bar.arrivals_done()) {
      tx_error(index, m.barrier.text + "'", bar,
               where(t) + ": " + role_of(index) + "the thread waits for");
      hung_ = true;
      return;
    }
    if (mine == c || (phase < 0 && q == 0)) {
      error(DiagId::contract_mbarrier_count, index, op.pos, 1,
            where(t) + ": " + role_of(index) + "the thread waits for phase " +
                std::to_string(std::max<std::int64_t>(phase, 0)) + " of barrier '" +
                m.barrier.text + "', which has " + std::to_string(bar.arrived) + " of its " +
                std::to_string(bar.count) + " arrivals when every thread is here: it hangs");
      hung_ = true;
      return;
    }
    // Parity 1 before any phase completed names the phase before phase 0, which counts as
    // completed: the wait passes at once and orders nothing. That is a ring's producer
    // waiting for a free slot before the slot's first use, accepted while phase 0 has
    // neither arrivals nor transaction bytes (nothing could be meant by the wait yet).
    const bool untouched = bar.arrived == 0 && !bar.expects && bar.delivered == 0;
    if (phase < 0) {
      if (!untouched)
        error(DiagId::contract_mbarrier_parity, index, m.parity.pos, plen,
              where(t) + ": " + role_of(index) + "no phase of barrier '" + m.barrier.text +
                  "' has completed and the thread did not arrive on it: parity 1 names the "
                  "phase before phase 0 and passes at once, before the arrivals or the bytes "
                  "phase 0 already has");
    } else if (phase == c - 1 && q == phase % 2 && mine == no_phase && phase > 0 &&
               known_[static_cast<std::size_t>(t)][bar.key] < phase) {
      const std::string before = std::to_string(phase - 1);
      error(DiagId::contract_mbarrier_parity, index, m.parity.pos, plen,
            where(t) + ": " + role_of(index) + "the thread waits for phase " +
                std::to_string(phase) + " of barrier '" + m.barrier.text + "' (parity " +
                std::to_string(q) + "), but it does not know that phase " + before +
                " completed (it did not wait for it, nor for a phase of another barrier "
                "released after it, nor meet a thread that did at a cta_sync): in another "
                "order of the threads it gets here while an earlier phase of the same parity "
                "is the last completed, and the wait passes at once, before phase " +
                std::to_string(phase) + "'s arrivals and bytes; wait for phase " + before +
                " (parity " + std::to_string((phase - 1) % 2) +
                ") first, or put a cta_sync after a wait for it");
    } else if (phase != c - 1 || q != phase % 2) {
      error(DiagId::contract_mbarrier_parity, index, m.parity.pos, plen,
            where(t) + ": " + role_of(index) + "the thread waits on parity " + std::to_string(q) +
                " of barrier '" + m.barrier.text + "', but the phase it needs is phase " +
                std::to_string(phase) + " (parity " + std::to_string(phase % 2) + ") and " +
                std::to_string(c) + " phases have completed" +
                (phase != c - 1 ? ": a later phase with the same parity makes it ambiguous"
                                : ": it " + std::string(q == c % 2 ? "hangs on the phase in "
                                                                     "progress"
                                                                   : "passes at once")));
    }
    mine = no_phase;
    if (phase >= 0) {
      Knowledge& knows = known_[static_cast<std::size_t>(t)];
      learn(knows, bar.released);
      knows[bar.key] = std::max(knows[bar.key], c);
    }
  }

  // Ops that name no mbarrier. ops.def's plain ops (groups, fences) at once; cta_sync and
  // cluster_sync, plain too, have their own exec above and below.
  template <PlainOp P>
  void exec(std::size_t, const Op&, const P&) {}
  void exec(std::size_t, const Op&, const ApplyOp&) {}
  void exec(std::size_t, const Op&, const WaitGroupOp&) {}
  void exec(std::size_t, const Op&, const FillOp&) {}
  void exec(std::size_t, const Op&, const CopyOp&) {}
  // A bar.sync's threads learn what each of them knew; a bar.arrive's tell the waiting ones,
  // which is left out here (knowing less refuses more, never accepts more). setmaxnreg moves
  // registers.
  void exec(std::size_t, const Op&, const NamedBarrierOp& b) {
    if (!b.arrive)
      share_knowledge([&](std::int64_t t) { return issues(b.pred, t); });
  }
  void exec(std::size_t, const Op&, const SetmaxnregOp&) {}
  void exec(std::size_t, const Op&, const ForOp&) {}
  void exec(std::size_t, const Op&, const EndOp&) {}
  // The transaction bytes of a phase. Loads deliver theirs to the phase current when they
  // are issued; they may land at any time later, so a phase is settled only when its
  // expect_tx total equals what its loads deliver. Within the tx-count's range at every
  // moment of any interleaving: both totals in 0..max_tx_count.

  void exec(std::size_t index, const Op& op, const ExpectTxOp& e) {
    Completions completed_here;
    for (std::int64_t t = 0; t < k_.block; ++t) {
      const ExprEnv& env = envs_[static_cast<std::size_t>(t)];
      if (!issues(e.pred, t))
        continue;
      Barrier* bar = used(index, e.barrier, t);
      const auto bytes = evaluate(*e.bytes.value, env);
      if (!bar || !bytes)
        return;
      check_expect_after_previous(index, op, e, *bar, t, *bytes);
      bar->expects = true;
      bar->expected_by[static_cast<std::size_t>(t)] = bar->completed;
      bar->last_tx_op = index;
      add_tx(index, op, e.barrier, *bar, t, bar->expected, *bytes, "expected");
      if (e.arrive) {
        arrive(index, op, e.barrier, *bar, t, completed_here);
        continue;
      }
      LooseExpect& x = bar->loose[static_cast<std::size_t>(t)];
      bar->loose_count += x.phase == no_phase ? 1 : 0;
      x = {bar->completed, false, index, *bytes};
      if (settle(index, t, e.barrier, *bar))
        ++completed_here[bar];
    }
  }

  void exec(std::size_t index, const Op& op, const BulkLoadOp& b) {
    const auto bytes = contiguous_bytes(b.dst.value);
    if (bytes && b.multicast)
      deliver_multicast(index, op, b.barrier, b.pred, *b.multicast->value, true, *bytes);
    else if (bytes)
      deliver(index, op, b.barrier, b.pred, *bytes);
  }

  void exec(std::size_t index, const Op& op, const TensorLoadOp& t) {
    const TensorDecl* d = k_.find_tensor(t.tensor.value);
    if (d && d->map && t.multicast)
      deliver_multicast(index, op, t.barrier, t.pred, *t.multicast->value, true,
                        box_bytes(*d->map));
    else if (d && d->map)
      deliver(index, op, t.barrier, t.pred, box_bytes(*d->map));
  }

  // ------------------------------------------------------------------------ multicast
  // The CTAs of a cluster run the same ops; the walk takes them at the same op together (the
  // same loop iteration): at a multicast, the CTA walked receives the bytes of every thread
  // of its cluster whose mask names its rank, on its own barrier at the offset the issuing
  // thread names.

  void exec(std::size_t, const Op&, const MbarrierInitFenceOp&) {
    for (auto& [key, bar] : barriers_)
      bar.init_fenced = bar.initialised;
  }

  /// A bulk_copy_peer: the CTA walked receives the bytes of every thread of its cluster whose
  /// dst rank names it, on its barrier at the offset the sender names (the builder proved
  /// dst and barrier name one CTA).
  void exec(std::size_t index, const Op& op, const BulkCopyPeerOp& b) {
    const auto bytes = contiguous_bytes(b.src.value);
    if (bytes)
      deliver_multicast(index, op, b.barrier, b.pred, *b.dst.value.peer, false, *bytes);
  }

  /// `target` names the receiving CTAs: a multicast's mask (`mask`: bit r for rank r) or a
  /// peer copy's rank.
  void deliver_multicast(std::size_t index, const Op& op, const Located<View>& v,
                         const std::optional<Located<ExprPtr>>& pred, const Expr& target, bool mask,
                         std::int64_t bytes) {
    const ClusterPlace place = cluster_place(k_, bid_);
    // The copies of one op land in any order: the phase settles after all of them, so that
    // a phase expecting fewer bytes is the early completion it is, not a later phase's load.
    std::vector<std::pair<Barrier*, std::int64_t>> landed;
    for (const std::int64_t p : place.peers) {
      budget_ -= p == bid_ ? 0 : k_.block;
      for (std::int64_t t = 0; t < k_.block; ++t) {
        ExprEnv env = p == bid_ ? envs_[static_cast<std::size_t>(t)] : k_.env_for(p, t, values_);
        env.loops = envs_[0].loops;
        if (pred) {
          const auto q = evaluate(*pred->value, env);
          if (!q || *q == 0)
            continue;
        }
        const auto m = evaluate(target, env);
        if (!m || (mask ? ((*m >> place.rank) & 1) == 0 : *m != place.rank))
          continue;
        Barrier* bar = receive(index, op, v, env, p, bytes, mask);
        if (bar == nullptr)
          return;
        landed.emplace_back(bar, t);
      }
    }
    for (const auto& [bar, t] : landed)
      settle(index, t, v, *bar);
  }

  /// The bytes of thread env.tid of CTA `from` land in the CTA walked, on the barrier it
  /// returns; nullptr after a report that ends the op.
  Barrier* receive(std::size_t index, const Op& op, const Located<View>& v, const ExprEnv& env,
                   std::int64_t from, std::int64_t bytes, bool mask) {
    const std::string copy = mask ? "multicast" : "bulk_copy_peer";
    const std::int64_t t = env.tid;
    const std::string sender =
        from == bid_ ? "its own thread " + std::to_string(t)
                     : "thread " + std::to_string(t) + " of CTA " + std::to_string(from);
    Barrier* bar = nullptr;
    if (from == bid_) {
      bar = used(index, v, t);
      if (bar == nullptr)
        return nullptr; // used() reported it
    } else {
      const std::vector<std::int64_t> zeros(v.value.rank(), 0);
      const auto off = v.value.byte_offset(zeros, env);
      auto it = off ? barriers_.find({v.value.tensor, *off}) : barriers_.end();
      bar = it == barriers_.end() ? nullptr : &it->second;
    }
    if (bar == nullptr || !bar->published) {
      error(mask ? DiagId::contract_multicast_init : DiagId::contract_peer_copy_init, index, v.pos,
            len(v.text),
            "CTA " + std::to_string(bid_) + ": the " + copy + " of " + sender +
                " completes its bytes on barrier '" + v.text +
                "' of this CTA, whose mbarrier_init is not visible to the cluster yet: "
                "initialise it, then mbarrier_init_fence (fence.mbarrier_init.release.cluster) "
                "and a cluster_sync before the first " +
                copy + " into it");
      return nullptr;
    }
    if (from == bid_)
      check_load_expected(index, op, v, *bar, t, bytes);
    else if (!bar->expects)
      error(mask ? DiagId::contract_multicast_expect_tx : DiagId::contract_peer_copy_expect_tx,
            index, op.pos, 1,
            "CTA " + std::to_string(bid_) + ": the " + copy + " of " + sender + " lands " +
                std::to_string(bytes) + " bytes in this CTA and completes them on phase " +
                std::to_string(bar->completed) + " of its barrier '" + v.text +
                "', which has no expect_tx: every receiving CTA must expect the bytes that "
                "land in it (an expect_tx on the issuer counts for the issuer's barrier only)");
    bar->last_tx_op = index;
    bar->multicast_phase = bar->completed;
    bar->multicast_op = index;
    bar->peer_since_sync = bar->peer_since_sync || from != bid_;
    add_tx(index, op, v, *bar, t, bar->delivered, bytes, "delivered");
    return bar;
  }

  /// At the end of the kernel: a CTA exits only after one of its threads waited for every
  /// phase multicast bytes landed in (a peer's multicast may still be writing otherwise), and
  /// after a cluster_sync that follows its peers' last multicast into it (the peers use its
  /// shared memory and barrier until then).
  void check_multicast_exit() {
    for (const auto& [key, bar] : barriers_) {
      if (bar.multicast_phase == no_phase || bar.completed <= bar.multicast_phase)
        continue; // an open phase is the tx and count rules'
      // A peer copy's sender keeps the cluster_sync before the end itself
      // (contract_peer_exit, at its dst): here only the receiver's wait is the rule.
      const bool peer = std::holds_alternative<BulkCopyPeerOp>(k_.ops[bar.multicast_op].body);
      if (bar.peer_since_sync && !peer) {
        error(DiagId::contract_multicast_exit, bar.multicast_op, k_.ops[bar.multicast_op].pos, 1,
              "CTA " + std::to_string(bid_) + " may exit while its peers' copies of " +
                  op_at(bar.multicast_op) + " still use its shared memory and barrier '" +
                  key.first->name + "' (byte " + std::to_string(key.second) +
                  "): no cluster_sync follows it before the end of the kernel; end with a "
                  "cluster_sync, as the peers' use must be over before a CTA exits");
        continue;
      }
      bool waited = false;
      for (const Knowledge& knows : known_) {
        const auto it = knows.find(key);
        waited = waited || (it != knows.end() && it->second > bar.multicast_phase);
      }
      if (waited)
        continue;
      error(peer ? DiagId::contract_peer_copy_exit : DiagId::contract_multicast_exit,
            bar.multicast_op, k_.ops[bar.multicast_op].pos, 1,
            "CTA " + std::to_string(bid_) + " may exit while the copies of " +
                op_at(bar.multicast_op) +
                " still write its shared memory: no thread of "
                "it waits for phase " +
                std::to_string(bar.multicast_phase) + " of barrier '" + key.first->name +
                "' (byte " + std::to_string(key.second) +
                "), which those bytes complete; wait for it before the kernel ends");
    }
  }

  /// Each issuing thread's load delivers `bytes` to its barrier's current phase.
  void deliver(std::size_t index, const Op& op, const Located<View>& v,
               const std::optional<Located<ExprPtr>>& pred, std::int64_t bytes) {
    for (std::int64_t t = 0; t < k_.block; ++t) {
      if (!issues(pred, t))
        continue;
      Barrier* bar = used(index, v, t);
      if (!bar)
        return;
      check_load_expected(index, op, v, *bar, t, bytes);
      bar->last_tx_op = index;
      add_tx(index, op, v, *bar, t, bar->delivered, bytes, "delivered");
      settle(index, t, v, *bar);
    }
  }

  /// A load of thread t on the phase needs an expect_tx of the phase ordered before it: the
  /// thread's own (earlier in its program order) or one before a cta_sync since. Otherwise
  /// its bytes may land, and the thread arrive, before any expect_tx raised the tx-count:
  /// with no arrival pending and a tx-count of 0 the phase completes early, the bytes still
  /// in flight (an expect_tx of another thread in the same stretch between cta_syncs is
  /// ordered with nothing the thread does). Stricter than PTX, which lets complete_tx come
  /// first when the phase cannot complete in between; that needs the arrivals' order.
  void check_load_expected(std::size_t index, const Op& op, const Located<View>& v,
                           const Barrier& bar, std::int64_t t, std::int64_t bytes) {
    const std::string head = where(t) + ": the load completes " + std::to_string(bytes) +
                             " transaction bytes on phase " + std::to_string(bar.completed) +
                             " of barrier '" + v.text + "', ";
    if (!bar.expects)
      error(DiagId::contract_mbarrier_tx_unexpected, index, op.pos, 1,
            head + "which has no expect_tx yet: the bytes may land before the phase expects "
                   "them (issue the phase's expect_tx before its loads)");
    else if (bar.expected_by[static_cast<std::size_t>(t)] != bar.completed && !bar.expects_synced)
      error(DiagId::contract_mbarrier_tx_unexpected, index, op.pos, 1,
            head + "whose expect_tx came from another thread with no cta_sync between it and "
                   "this load: nothing orders it before the load, so the bytes may land and the "
                   "phase complete before it (issue the expect_tx in the loading thread, or "
                   "put a cta_sync between them)");
  }

  /// Adds `bytes` to one of the phase's totals, which must stay within the tx-count's range.
  void add_tx(std::size_t index, const Op& op, const Located<View>& v, Barrier& bar, std::int64_t t,
              std::int64_t& total, std::int64_t bytes, std::string_view what) {
    total += bytes;
    if (total > ptx::max_tx_count)
      error(DiagId::contract_mbarrier_tx_range, index, op.pos, 1,
            where(t) + ": phase " + std::to_string(bar.completed) + " of barrier '" + v.text +
                "' has " + std::to_string(total) + " transaction bytes " + std::string(what) +
                " (" + tx_totals(bar) + "); the transaction count holds at most " +
                std::to_string(ptx::max_tx_count) + ": split the phase's bytes over more phases");
  }

  void exec(std::size_t, const Op&, const BulkStoreOp&) {}
  void exec(std::size_t, const Op&, const BulkReduceOp&) {}
  void exec(std::size_t, const Op&, const BulkWaitOp&) {}
  void exec(std::size_t, const Op&, const TensorStoreOp&) {}
  // Tensor maps in memory touch no barrier (their ordering is tensormap_contract.cpp's).
  void exec(std::size_t, const Op&, const TensormapCopyOp&) {}
  void exec(std::size_t, const Op&, const TensormapReplaceOp&) {}
  void exec(std::size_t, const Op&, const TensormapFenceOp&) {}
  void exec(std::size_t, const Op&, const TensorReduceOp&) {}
  void exec(std::size_t, const Op&, const PrefetchTensormapOp&) {}
  /// Among the CTA's threads (what this walk follows: mbarriers are the CTA's own) a
  /// cluster_sync orders as the CTA's barrier, whose relaxed arrival orders no memory but the
  /// fenced inits. A cluster_sync (relaxed too: the init fence is the release, the wait the
  /// acquire, for every thread of the cluster, the CTA's own included: the PTX ISA's
  /// mbarrier.init, fence.mbarrier_init, barrier.cluster.arrive.relaxed, barrier.cluster.wait)
  /// publishes the fenced inits.
  void exec(std::size_t i, const Op& op, const ClusterSyncOp& c) {
    if (!c.relaxed)
      exec(i, op, CtaSyncOp{});
    for (auto& [key, bar] : barriers_) {
      bar.published = bar.published || bar.init_fenced;
      bar.synced = bar.synced || (bar.initialised && bar.init_fenced);
      bar.peer_since_sync = false;
    }
  }
};

} // namespace

bool uses_mbarriers(const Kernel& k) {
  for (const Op& op : k.ops)
    if (op_row(op.body).uses_mbarrier())
      return true;
  return false;
}

void check_mbarrier_phases(const Kernel& k, Diagnostics& out, std::int64_t max_steps,
                           std::span<const std::uint64_t> values) {
  if (!uses_mbarriers(k))
    return;
  const bool clean = !out.has_errors();
  Walk(k, out, max_steps, values).run();
  // The refill walk takes the phases' counts and parities as this walk proves them.
  if (clean && !out.has_errors())
    check_multicast_refill(k, out, max_steps, values);
}

} // namespace ptxgen::tile
