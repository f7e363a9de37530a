#include "driver/reference/reference.hpp"

#include "driver/reference/affine_view.hpp"
#include "driver/reference/hazards.hpp"
#include "driver/reference/naive_expr.hpp"
#include "driver/reference/naive_view.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace ptxgen::driver {
namespace {

constexpr std::size_t kernel_level = std::numeric_limits<std::size_t>::max(); ///< not one op

struct Buffer {
  std::string name;
  bool shared = false;
  std::vector<std::int64_t> shape; ///< the tensor's, for the element of a byte in findings
  std::int64_t element_bytes = 1;
  std::vector<std::uint8_t> bytes;
  std::vector<bool> defined;
  ref::SharedBytes hz; ///< shared tensors only: the ordering state of each byte
};

/// An op index as the hazard state stores it.
std::int32_t op32(std::size_t op) {
  return static_cast<std::int32_t>(op);
}

/// One queued chunk of an apply: performed at the issuing thread's wait.
struct Chunk {
  std::size_t op = 0;
  std::int64_t group = 0;
  Buffer* dst = nullptr;
  std::vector<std::int64_t> dst_off;
  Buffer* src = nullptr;
  std::vector<std::int64_t> src_off;
  std::int64_t read_bytes = 0; ///< the first read_bytes come from src, the rest are zero
  /// The first wait_group that ran while no commit_group had closed this chunk's group
  /// (kernel_level when none): that wait did not cover it.
  std::size_t skipped_by_wait = kernel_level;
  /// The copy_arrives (indices into Cta::deferred) whose deferred arrival waits for it.
  std::vector<std::size_t> deferred;
};

/// An mbarrier of one CTA, exactly as PTX keeps it.
struct RefBarrier {
  std::string name; ///< the barrier view's text, for findings
  bool initialised = false;
  std::int64_t count = 0;   ///< arrivals per phase
  std::int64_t pending = 0; ///< arrivals the current phase still needs
  std::int64_t phase = 0;   ///< the current phase's index (its parity is phase % 2)
  std::int64_t unfired = 0; ///< copy_arrives on it whose copies have not all landed
};

/// The deferred arrival of one thread's copy_arrive: it arrives when its copies have landed.
struct Deferred {
  std::size_t barrier = 0; ///< index into Cta::barriers
  std::size_t op = 0;
  std::int64_t remaining = 0; ///< copies still pending
  bool fired = false;
};

struct ThreadState {
  std::vector<Chunk> queue;    ///< issue order
  std::int64_t open_group = 0; ///< id of the group being filled = groups committed so far
  std::int32_t waits = 0;      ///< wait_group and wait_all ops run so far
  ref::LiveWait live;          ///< the wait_group it ran last, while it is its newest wait
  /// Per barrier id: the newest phase this thread's mbarrier_waits have seen complete.
  std::map<std::size_t, std::int64_t> waited;
};

struct Cta {
  std::vector<Buffer> shared; ///< one per shared tensor, in declaration order
  std::int32_t epoch = 0;     ///< cta_sync count
  std::vector<ThreadState> threads;
  std::vector<RefBarrier> barriers;                                        ///< by id
  std::map<std::pair<std::size_t, std::int64_t>, std::size_t> barrier_ids; ///< (slot, byte)
  std::vector<Deferred> deferred;                                          ///< every copy_arrive's
};

/// Problems, aggregated per (op, id, kind): the first instance and a count.
class Problems {
public:
  void add(std::size_t op, DiagId id, const std::string& kind,
           const std::function<std::string()>& detail, Severity severity = Severity::error) {
    auto [it, fresh] = index_.try_emplace({op, id, kind}, entries_.size());
    if (fresh) {
      entries_.push_back({op, id, kind, detail(), 1, severity});
    } else {
      ++entries_[it->second].count;
    }
  }

  /// A problem that is the cause of others: reported once, without a count of the accesses
  /// that ran into it.
  void add_cause(std::size_t op, DiagId id, const std::string& kind,
                 const std::function<std::string()>& detail) {
    if (index_.try_emplace({op, id, kind}, entries_.size()).second) {
      entries_.push_back({op, id, kind, detail(), 1, Severity::error});
    }
  }

  /// Each finding (errors and notes): its ID, its op and its text without the op's name.
  std::vector<ReferenceFinding> findings() const {
    std::vector<ReferenceFinding> out;
    for (const auto& e : entries_)
      out.push_back({e.id, e.op == kernel_level ? ReferenceOutput::kernel_problem : e.op, text(e),
                     e.severity});
    return out;
  }

  /// The op index of each line of lines(), in the same order.
  std::vector<std::size_t> ops() const {
    std::vector<std::size_t> out;
    for (const auto& e : entries_)
      if (e.severity == Severity::error)
        out.push_back(e.op == kernel_level ? ReferenceOutput::kernel_problem : e.op);
    return out;
  }

  /// The errors (not the notes), one line each, with the op's name.
  std::vector<std::string> lines(const tile::Kernel& k) const {
    static const char* const names[] = {"apply",         "commit_group", "wait_group",
                                        "wait_all",      "cta_sync",     "fill",
                                        "copy",          "for",          "end",
                                        "mbarrier_init", "copy_arrive",  "mbarrier_arrive",
                                        "mbarrier_wait"};
    static_assert(std::size(names) == std::variant_size_v<tile::OpBody>);
    std::vector<std::string> out;
    for (const auto& e : entries_) {
      if (e.severity != Severity::error) {
        continue;
      }
      std::string line;
      if (e.op == kernel_level) {
        line = "kernel";
      } else {
        const tile::Op& op = k.ops[e.op];
        line = "op " + std::to_string(e.op + 1) + " (" + names[op.body.index()];
        if (op.pos.line != 0) {
          line += " at " + (op.pos.file.empty() ? k.file : op.pos.file) + ":" +
                  std::to_string(op.pos.line);
        }
        line += ")";
      }
      out.push_back(line + ": " + text(e));
    }
    return out;
  }

private:
  struct Entry {
    std::size_t op;
    DiagId id;
    std::string kind;
    std::string first;
    std::int64_t count;
    Severity severity;
  };

  /// "kind: first instance (N times in all)".
  static std::string text(const Entry& e) {
    std::string s = e.kind;
    if (!e.first.empty()) {
      s += ": " + e.first;
    }
    if (e.count > 1) {
      s += " (" + std::to_string(e.count) + " times in all)";
    }
    return s;
  }

  std::vector<Entry> entries_;
  std::map<std::tuple<std::size_t, DiagId, std::string>, std::size_t> index_;
};

/// Calls f(coords) for every coordinate of `shape`, row major, over the axes
/// from `from` on; coords[0..from) are left as the caller set them.
template <class F>
void for_each_coord(const std::vector<std::int64_t>& shape, std::size_t from,
                    std::vector<std::int64_t>& coords, F&& f) {
  coords.resize(shape.size());
  for (std::size_t a = from; a < shape.size(); ++a) {
    if (shape[a] <= 0) {
      return; // an empty axis: no coordinates at all
    }
    coords[a] = 0;
  }
  while (true) {
    f(static_cast<const std::vector<std::int64_t>&>(coords));
    std::size_t a = shape.size();
    while (true) {
      if (a == from) {
        return; // every axis wrapped around (or there are none)
      }
      --a;
      if (++coords[a] < shape[a]) {
        break;
      }
      coords[a] = 0;
    }
  }
}

std::string coords_text(const std::vector<std::int64_t>& c) {
  std::string s = "(";
  for (std::size_t i = 0; i < c.size(); ++i) {
    s += (i ? "," : "") + std::to_string(c[i]);
  }
  return s + ")";
}

class Evaluator {
public:
  explicit Evaluator(const ReferenceInput& in)
      : in_(in), k_(*in.kernel), slack_(k_.ops.size()), loop_commits_(k_.ops.size()) {}

  ReferenceOutput run() {
    ReferenceOutput out;
    if (k_.grid <= 0 || k_.block <= 0) {
      problems_.add(kernel_level, DiagId::check_empty_launch, "empty launch", [&] {
        return "grid " + std::to_string(k_.grid) + ", block " + std::to_string(k_.block);
      });
      finish(out);
      return out;
    }
    set_up();
    // CTAs are independent: each runs the ops on its own, in order, its threads
    // in lockstep op by op; a `for` repeats the ops up to its `end`. One CTA's state
    // (shared tensors, threads) at a time.
    for (cta_ = 0; cta_ < k_.grid; ++cta_) {
      cta_state_.shared = shared_template_;
      cta_state_.epoch = 0;
      cta_state_.threads.assign(static_cast<std::size_t>(k_.block), ThreadState{});
      cta_state_.barriers.clear();
      cta_state_.barrier_ids.clear();
      cta_state_.deferred.clear();
      for (std::size_t i = 0; i < k_.ops.size();) {
        std::visit([&](const auto& body) { run_op(i, body); }, k_.ops[i].body);
        i = next_op_;
      }
      for (std::int64_t t = 0; t < k_.block; ++t) {
        finish_thread(cta_, t);
      }
    }
    report_loose_waits();
    for (Buffer& g : globals_) { // the last use of the buffers
      out.global[g.name] = std::move(g.bytes);
      out.defined[g.name] = std::move(g.defined);
    }
    finish(out);
    return out;
  }

private:
  /// At the end of the kernel: reports the thread's copies still pending (as a missing
  /// commit_group where a wait passed over them uncommitted) and performs them.
  void finish_thread(std::int64_t b, std::int64_t t) {
    ThreadState& ts = cta_state_.threads[t];
    slack_.close(ts.live, ref::WaitSlack::covers_nothing); // the end performs nothing
    if (ts.queue.empty()) {
      return;
    }
    bool unexplained = false;
    for (const Chunk& c : ts.queue) {
      if (c.skipped_by_wait != kernel_level) {
        report_missing_commit(c.skipped_by_wait, c.op);
      } else {
        unexplained = true;
      }
    }
    if (unexplained) {
      problems_.add(kernel_level, DiagId::check_never_waited, "copies issued but never waited for",
                    [&] {
                      return where(b, t) + " ends with " + std::to_string(ts.queue.size()) +
                             " chunks pending";
                    });
    }
    perform(cta_state_, t, [](const Chunk&) { return true; });
  }

  /// A note for each wait_group whose every run would have done with a larger count.
  void report_loose_waits() {
    for (std::size_t op = 0; op < k_.ops.size(); ++op) {
      const auto* w = std::get_if<tile::WaitGroupOp>(&k_.ops[op].body);
      if (w == nullptr || !slack_.worked(op) || slack_.best(op) <= w->n) {
        continue;
      }
      problems_.add(
          op, DiagId::check_wait_stricter, "wait stricter than needed",
          [&] {
            std::string s = "wait_group " + std::to_string(slack_.best(op)) + " would do: ";
            if (slack_.idle(op)) {
              return s + "it would complete nothing, and in none of its " +
                     std::to_string(slack_.runs(op)) +
                     " runs (all threads) does a read or write before the thread's next wait "
                     "need what it completes, which the next wait completes anyway: the wait "
                     "can go";
            }
            return s + "in each of its " + std::to_string(slack_.runs(op)) +
                   " runs (all threads), no read or write before the thread's next wait needs a "
                   "group newer than that, and the next wait completes the rest";
          },
          Severity::note);
    }
  }

  /// "CTA b thread t", and the live loop variables (outer first): "CTA 0 thread 5 (k=2)".
  std::string where(std::int64_t bid, std::int64_t tid) const {
    std::string s = "CTA " + std::to_string(bid) + " thread " + std::to_string(tid);
    if (!active_.empty()) {
      s += " (" + iteration_text() + ")";
    }
    return s;
  }

  /// The live loop variables, outer first: "i=1, k=2".
  std::string iteration_text() const {
    std::string s;
    for (const ActiveLoop& l : active_) {
      if (!s.empty()) {
        s += ", ";
      }
      s += l.var + "=" + std::to_string(loop_values_.at(l.var));
    }
    return s;
  }

  /// "byte 40 of 'sA' (element (1,2,8))".
  static std::string byte_text(const Buffer& b, std::int64_t off) {
    return "byte " + std::to_string(off) + " of '" + b.name + "' (" +
           ref::element_text(b.shape, b.element_bytes, off) + ")";
  }

  void finish(ReferenceOutput& out) const {
    out.problems = problems_.lines(k_);
    out.problem_ops = problems_.ops();
    out.findings = problems_.findings();
  }

  /// Where a view's tensor lives: a global buffer or the CTA's shared slot.
  struct Slot {
    bool shared = false;
    std::size_t index = 0;
  };

  void set_up() {
    for (const auto& decl : k_.tensors) {
      const tile::Tensor& t = decl->tensor;
      std::int64_t count = 1;
      for (auto s : t.shape) {
        count *= s < 0 ? 0 : s;
      }
      const auto size = static_cast<std::size_t>(count) * naive_dtype_bytes(t.dtype);
      Buffer b;
      b.name = t.name;
      b.shape = t.shape;
      b.element_bytes = static_cast<std::int64_t>(naive_dtype_bytes(t.dtype));
      if (t.space == tile::Space::global) {
        auto it = in_.global.find(t.name);
        if (it == in_.global.end()) {
          problems_.add(kernel_level, DiagId::check_initial_bytes,
                        "no initial bytes for a global tensor",
                        [&] { return "'" + t.name + "' starts as zeros"; });
          b.bytes.assign(size, 0);
        } else {
          b.bytes = it->second;
          if (b.bytes.size() != size) {
            problems_.add(kernel_level, DiagId::check_initial_bytes,
                          "initial bytes of the wrong size", [&] {
                            return "'" + t.name + "' has " + std::to_string(size) + " bytes, " +
                                   std::to_string(it->second.size()) + " were given";
                          });
            b.bytes.resize(size, 0);
          }
        }
        b.defined.assign(size, true);
        slots_[&t] = {false, globals_.size()};
        by_name_[t.name] = {false, globals_.size()};
        globals_.push_back(std::move(b));
      } else {
        b.shared = true;
        b.bytes.assign(size, 0);
        b.defined.assign(size, false);
        b.hz.reset(size);
        slots_[&t] = {true, shared_template_.size()};
        by_name_[t.name] = {true, shared_template_.size()};
        shared_template_.push_back(std::move(b));
      }
    }
    for (const auto& p : k_.params) {
      params_[p.name] = static_cast<std::int64_t>(p.value);
    }
  }

  tile::ExprEnv env(std::int64_t bid, std::int64_t tid) const {
    tile::ExprEnv e;
    e.tid = tid;
    e.bid = bid;
    // A kernel built by hand may set only the totals: then the launch is x only.
    e.block_dim = k_.block_dim.count() == k_.block ? k_.block_dim : tile::Dim3{k_.block, 1, 1};
    e.grid_dim = k_.grid_dim.count() == k_.grid ? k_.grid_dim : tile::Dim3{k_.grid, 1, 1};
    e.loops = loop_values_;
    for (const auto& [n, v] : params_) {
      e.params[n] = v;
    }
    return e;
  }

  const NaivePlan& plan(const tile::View& v) {
    auto it = plans_.find(&v);
    if (it == plans_.end()) {
      it = plans_.emplace(&v, naive_plan(v)).first;
    }
    return it->second;
  }

  std::optional<Slot> slot(const tile::View& v) const {
    if (v.tensor == nullptr) {
      return std::nullopt;
    }
    if (auto it = slots_.find(v.tensor); it != slots_.end()) {
      return it->second;
    }
    if (auto it = by_name_.find(v.tensor->name); it != by_name_.end()) {
      return it->second;
    }
    return std::nullopt;
  }

  Buffer& buffer(Slot s, Cta& cta) { return s.shared ? cta.shared[s.index] : globals_[s.index]; }

  /// Prepares a view for an op; records a problem and returns false when it cannot be used.
  bool prepare(std::size_t op, const tile::Located<tile::View>& v, const char* role) {
    const NaivePlan& p = plan(v.value);
    if (!p.ok()) {
      problems_.add(op, DiagId::check_view_unusable, std::string(role) + " view does not evaluate",
                    [&] { return "'" + v.text + "': " + p.error; });
      return false;
    }
    if (!slot(v.value)) {
      problems_.add(op, DiagId::check_view_unusable,
                    std::string(role) + " view names no tensor of the kernel",
                    [&] { return "'" + v.text + "'"; });
      return false;
    }
    return true;
  }

  /// The view's affine form for one thread (the fast path), or nullopt: naive_locate then.
  std::optional<AffineForm> form(const tile::Located<tile::View>& v, const tile::ExprEnv& e) {
    if (!in_.fast) {
      return std::nullopt;
    }
    return affine_form(plan(v.value), v.value, e);
  }

  /// The byte offsets of one element, or nullopt (with a problem) when any byte is outside.
  /// `fast`: the view's affine form for this thread, if it has one.
  std::optional<std::vector<std::int64_t>> locate(std::size_t op,
                                                  const tile::Located<tile::View>& v,
                                                  const Buffer& b, const tile::ExprEnv& e,
                                                  const std::vector<std::int64_t>& coords,
                                                  const std::optional<AffineForm>& fast) {
    if (fast) {
      const std::int64_t first = fast->offset(coords);
      if (first >= 0 && first + fast->element_bytes <= static_cast<std::int64_t>(b.bytes.size())) {
        std::vector<std::int64_t> offsets(static_cast<std::size_t>(fast->element_bytes));
        for (std::size_t i = 0; i < offsets.size(); ++i) {
          offsets[i] = first + static_cast<std::int64_t>(i);
        }
        return offsets;
      }
    }
    NaiveLocation loc = naive_locate(plan(v.value), v.value, e, coords);
    bool inside = loc.in_bounds && !loc.offsets.empty();
    for (std::int64_t o : loc.offsets) {
      inside = inside && o >= 0 && o < static_cast<std::int64_t>(b.bytes.size());
    }
    if (!inside) {
      problems_.add(op, DiagId::check_out_of_bounds, "bytes outside the tensor (not written)", [&] {
        std::string s = where(e.bid, e.tid) + ", '" + v.text + "' at " + coords_text(coords);
        if (!loc.offsets.empty()) {
          s += " -> byte " + std::to_string(loc.offsets.front()) + " of '" + b.name + "' (" +
               std::to_string(b.bytes.size()) + " bytes)";
        }
        if (!loc.error.empty()) {
          s += ": " + loc.error;
        }
        return s;
      });
      return std::nullopt;
    }
    return std::move(loc.offsets);
  }

  /// A thread's read of a byte, with the shared-memory ordering checks.
  std::pair<std::uint8_t, bool> read(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid,
                                     Buffer& b, std::int64_t off) {
    bool moot = false; // the missing commit_group is the cause; the byte's value is moot
    if (b.shared) {
      ref::SharedBytes& h = b.hz;
      if (h.pending[off] > 0 && missing_commit(b, off)) {
        moot = true;
      } else if (h.pending[off] > 0) {
        problems_.add(op, DiagId::check_read_pending,
                      "reads shared bytes that a pending (not yet waited) copy will write", [&] {
                        return where(bid, tid) + " reads " + byte_text(b, off) + ", which op " +
                               std::to_string(h.pending_op[off] + 1) + "'s copy by thread " +
                               std::to_string(h.pending_tid[off]) +
                               " will write: it is not yet waited" + pending_cause(cta, h, off);
                      });
      }
      const std::int32_t guard = h.guard_barrier[off];
      if (guard != ref::none) {
        const auto& waited = cta.threads[static_cast<std::size_t>(tid)].waited;
        const auto it = waited.find(static_cast<std::size_t>(guard));
        if (it == waited.end() || it->second < h.guard_phase[off]) {
          problems_.add(op, DiagId::check_mbarrier_unwaited_read,
                        "reads shared bytes an mbarrier phase guards before waiting for that phase",
                        [&] {
                          return where(bid, tid) + " reads " + byte_text(b, off) +
                                 ", landed by copies whose copy_arrive arrives in phase " +
                                 std::to_string(h.guard_phase[off]) + " of barrier '" +
                                 cta.barriers[static_cast<std::size_t>(guard)].name +
                                 "'; the thread has not waited for that phase";
                        });
        }
      } else if (h.writer[off] >= 0 && h.writer[off] != tid && h.write_epoch[off] == cta.epoch) {
        problems_.add(op, DiagId::check_read_without_sync,
                      "reads shared bytes another thread wrote with no cta_sync in between", [&] {
                        return where(bid, tid) + " reads " + byte_text(b, off) +
                               " written by thread " + std::to_string(h.writer[off]);
                      });
      }
      used_again(cta, h, off);
      h.note_read(static_cast<std::size_t>(off), static_cast<std::int32_t>(tid), cta.epoch,
                  op32(op));
    }
    return {b.bytes[off], b.defined[off] || moot};
  }

  /// Why a pending byte's group is not complete, from the issuing thread's last wait_group:
  /// the count that would have completed it, or no wait since its commit.
  static std::string pending_cause(const Cta& cta, const ref::SharedBytes& h, std::int64_t off) {
    const ThreadState& ts = cta.threads[static_cast<std::size_t>(h.pending_tid[off])];
    for (const Chunk& c : ts.queue) {
      if (c.op != static_cast<std::size_t>(h.pending_op[off]) || c.deferred.empty() ||
          std::find(c.dst_off.begin(), c.dst_off.end(), off) == c.dst_off.end()) {
        continue;
      }
      return " (a copy_arrive on barrier '" +
             cta.barriers[cta.deferred[c.deferred.front()].barrier].name +
             "' tracks it: read it after the mbarrier_wait for that phase)";
    }
    const std::int64_t group = h.pending_group[off];
    if (ts.live.op == ref::none || group >= ts.live.open) {
      return " (no wait_group since its commit_group)";
    }
    return "; that thread's last wait, op " + std::to_string(ts.live.op + 1) + " (wait_group " +
           std::to_string(ts.live.n) + "), left its newest " + std::to_string(ts.live.n) +
           " groups pending: wait_group " + std::to_string(ts.live.open - 1 - group) +
           " there would complete this one";
  }

  /// A byte a wait_group landed is read or written again: while that wait is still its
  /// thread's newest, the wait had to complete the byte's group.
  void used_again(Cta& cta, ref::SharedBytes& h, std::int64_t off) {
    const std::int32_t owner = h.land_tid[off];
    if (owner == ref::none) {
      return;
    }
    ThreadState& ts = cta.threads[static_cast<std::size_t>(owner)];
    if (ts.waits == h.land_seq[off] && ts.live.op != ref::none) {
      ref::WaitSlack::needed(ts.live, h.land_group[off]);
    }
    h.land_tid[off] = ref::none; // a second use says the same
  }

  /// A write (store, or the issue of a copy) into shared bytes another thread read in this
  /// barrier phase: the reader may still see the new bytes (refill without a barrier).
  void check_refill(std::size_t op, const Cta& cta, std::int64_t bid, std::int64_t tid,
                    const Buffer& b, std::int64_t off, bool copy) {
    const std::int32_t other =
        b.hz.other_reader(static_cast<std::size_t>(off), static_cast<std::int32_t>(tid), cta.epoch);
    if (other == ref::none) {
      return;
    }
    problems_.add(
        op, DiagId::check_refill_without_barrier,
        "writes shared bytes another thread read with no cta_sync in between (refill without a "
        "barrier)",
        [&] {
          const std::string who = other == ref::many_threads ? std::string("several threads")
                                                             : "thread " + std::to_string(other);
          return where(bid, tid) + (copy ? " issues a copy into " : " writes ") +
                 byte_text(b, off) + ", read by " + who + " at op " +
                 std::to_string(b.hz.read_op[off] + 1) +
                 " since the last cta_sync; add op = \"cta_sync\" between that read and this "
                 "write";
        });
  }

  /// When pending byte `off` of `b` belongs to a copy that a wait_group passed over because no
  /// commit_group had closed its group, reports that missing commit_group (at the wait) and
  /// returns true: it is the cause of whatever the access would otherwise report.
  bool missing_commit(const Buffer& b, std::int64_t off) {
    const std::int32_t wait = b.hz.skipped_by_wait[off];
    if (wait == ref::none) {
      return false;
    }
    report_missing_commit(static_cast<std::size_t>(wait),
                          static_cast<std::size_t>(b.hz.skipped_apply[off]));
    return true;
  }

  void report_missing_commit(std::size_t wait, std::size_t apply) {
    problems_.add_cause(
        wait, DiagId::check_missing_commit, "no commit_group before this wait", [&] {
          std::string line;
          if (k_.ops[apply].pos.line != 0) {
            line = " at line " + std::to_string(k_.ops[apply].pos.line);
          }
          return "the copies of op " + std::to_string(apply + 1) + " (apply" + line +
                 ") are in no committed group, so this wait does not wait for them; add "
                 "op = \"commit_group\" between the apply and the wait";
        });
  }

  /// Marks the thread's copies that no commit_group has closed yet as passed over by `wait`.
  void mark_uncommitted(std::size_t wait, ThreadState& ts) {
    for (Chunk& c : ts.queue) {
      if (c.group != ts.open_group || c.skipped_by_wait != kernel_level) {
        continue;
      }
      c.skipped_by_wait = wait;
      if (!c.dst->shared) {
        continue;
      }
      for (std::int64_t o : c.dst_off) {
        if (c.dst->hz.skipped_by_wait[o] == ref::none) {
          c.dst->hz.skipped_by_wait[o] = op32(wait);
          c.dst->hz.skipped_apply[o] = op32(c.op);
        }
      }
    }
  }

  /// A plain store (fill, copy) by a thread.
  void write(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b,
             std::int64_t off, std::uint8_t value, bool defined) {
    if (b.shared) {
      ref::SharedBytes& h = b.hz;
      if (h.pending[off] > 0 && !missing_commit(b, off)) {
        problems_.add(op, DiagId::check_write_pending,
                      "writes shared bytes that a pending (not yet waited) copy will write", [&] {
                        return where(bid, tid) + " writes " + byte_text(b, off) + ", which op " +
                               std::to_string(h.pending_op[off] + 1) + "'s copy by thread " +
                               std::to_string(h.pending_tid[off]) + " will write";
                      });
      }
      check_refill(op, cta, bid, tid, b, off, false);
      used_again(cta, h, off);
    }
    store(op, cta, bid, tid, b, off, value, defined);
  }

  /// The bytes of a write: value, definedness, and for shared bytes the writer.
  void store(std::size_t op, const Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b,
             std::int64_t off, std::uint8_t value, bool defined) {
    b.bytes[off] = value;
    b.defined[off] = defined;
    if (b.shared) {
      b.hz.writer[off] = static_cast<std::int32_t>(tid);
      b.hz.write_epoch[off] = cta.epoch;
      b.hz.land_tid[off] = ref::none;
      b.hz.guard_barrier[off] = ref::none;
    } else if (!defined) {
      problems_.add(op, DiagId::check_uninitialised_to_global,
                    "uninitialised shared bytes reach a global tensor", [&] {
                      return where(bid, tid) + " writes byte " + std::to_string(off) + " of '" +
                             b.name + "'";
                    });
    }
  }

  /// Performs (in issue order) and removes the thread's queued chunks selected by `which`.
  /// `landed`: performed by the thread's live wait_group (for its note), else by a wait_all or
  /// the end of the kernel.
  /// `via_barrier`: the barrier whose mbarrier_wait lands them, for the copy_arrives on it that
  /// track them: such bytes are guarded by the phase of that arrival (readable by the threads
  /// that waited for it). A copy tracked by arrivals on several barriers is guarded by the
  /// one whose wait landed it.
  template <class Pred>
  void perform(Cta& cta, std::int64_t tid, Pred which, bool landed = false,
               std::optional<std::size_t> via_barrier = std::nullopt) {
    const std::int64_t bid = cta_;
    ThreadState& ts = cta.threads[tid];
    std::vector<Chunk> keep;
    for (Chunk& c : ts.queue) {
      if (!which(c)) {
        keep.push_back(std::move(c));
        continue;
      }
      if (landed && c.dst->shared) {
        ref::WaitSlack::performed(ts.live, c.group);
      }
      for (std::size_t i = 0; i < c.dst_off.size(); ++i) {
        const std::int64_t o = c.dst_off[i];
        std::uint8_t value = 0;
        bool defined = true;
        if (static_cast<std::int64_t>(i) < c.read_bytes) {
          value = c.src->bytes[c.src_off[i]];
          defined = c.src->defined[c.src_off[i]];
        }
        store(c.op, cta, bid, tid, *c.dst, o, value, defined);
        if (!c.dst->shared) {
          continue;
        }
        ref::SharedBytes& h = c.dst->hz;
        if (--h.pending[o] == 0) {
          h.skipped_by_wait[o] = ref::none;
        }
        if (landed) {
          h.land_tid[o] = static_cast<std::int32_t>(tid);
          h.land_seq[o] = ts.waits;
          h.land_group[o] = static_cast<std::int32_t>(c.group);
        }
        // Tracked by a copy_arrive: readable after a wait for the phase it arrives in.
        for (std::size_t d : c.deferred) {
          const Deferred& def = cta.deferred[d];
          if (via_barrier == def.barrier && !def.fired) {
            h.guard_barrier[o] = static_cast<std::int32_t>(def.barrier);
            h.guard_phase[o] = cta.barriers[def.barrier].phase;
          }
        }
      }
      for (std::size_t d : c.deferred)
        if (--cta.deferred[d].remaining == 0)
          fire(cta, d);
    }
    ts.queue = std::move(keep);
  }

  // ---------------------------------------------------------------- mbarriers

  /// One arrival on barrier `id`: the pending count drops; at zero the phase completes, the
  /// count is reloaded and the phase (and its parity) advances.
  static void arrive_on(Cta& cta, std::size_t id) {
    RefBarrier& bar = cta.barriers[id];
    if (--bar.pending == 0) {
      ++bar.phase;
      bar.pending = bar.count;
    }
  }

  /// A copy_arrive's copies have all landed: its arrival (the one counted, with noinc; the
  /// one that undoes the increment of its issue, without).
  static void fire(Cta& cta, std::size_t d) {
    Deferred& def = cta.deferred[d];
    if (def.fired)
      return;
    def.fired = true;
    --cta.barriers[def.barrier].unfired;
    arrive_on(cta, def.barrier);
  }

  /// The id of the barrier `v` names for thread `tid`, from the naive view (its first byte);
  /// nullopt when it does not evaluate (a problem is recorded).
  std::optional<std::size_t> barrier_id(std::size_t op, const tile::Located<tile::View>& v,
                                        std::int64_t tid) {
    if (!prepare(op, v, "barrier"))
      return std::nullopt;
    const Slot s = *slot(v.value);
    Buffer& b = buffer(s, cta_state_);
    const std::vector<std::int64_t> zeros(plan(v.value).shape().size(), 0);
    const auto o = locate(op, v, b, env(cta_, tid), zeros, std::nullopt);
    if (!o || o->empty())
      return std::nullopt;
    auto [it, fresh] =
        cta_state_.barrier_ids.try_emplace({s.index, o->front()}, cta_state_.barriers.size());
    if (fresh)
      cta_state_.barriers.push_back(RefBarrier{v.text});
    return it->second;
  }

  /// The barrier of a use, or nullopt (with a problem) when it was never initialised.
  std::optional<std::size_t> used_barrier(std::size_t op, const tile::Located<tile::View>& v,
                                          std::int64_t tid) {
    const auto id = barrier_id(op, v, tid);
    if (id && !cta_state_.barriers[*id].initialised) {
      problems_.add(op, DiagId::check_mbarrier_hang, "uses an mbarrier never initialised",
                    [&] { return where(cta_, tid) + ": '" + v.text + "'"; });
      return std::nullopt;
    }
    return id;
  }

  void step_op(std::size_t op, const tile::MbarrierInitOp& m) {
    // Thread 0 initialises: phase 0, count arrivals pending.
    if (const auto id = barrier_id(op, m.barrier, 0)) {
      RefBarrier& bar = cta_state_.barriers[*id];
      bar.initialised = true;
      bar.count = m.count.value;
      bar.pending = m.count.value;
      bar.phase = 0;
      // The phases seen, and the bytes they guard, were the old initialisation's: a thread
      // that waited for them has seen those bytes.
      for (ThreadState& ts : cta_state_.threads)
        ts.waited.erase(*id);
      for (Buffer& b : cta_state_.shared)
        for (auto& g : b.hz.guard_barrier)
          if (g == static_cast<std::int32_t>(*id))
            g = ref::none;
    }
  }

  void step_op(std::size_t op, const tile::CopyArriveOp& m) {
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      const auto id = used_barrier(op, m.barrier, tid);
      if (!id)
        continue;
      // Without noinc the pending count goes up now; the deferred arrival takes it down again.
      if (!m.noinc)
        ++cta_state_.barriers[*id].pending;
      const std::size_t d = cta_state_.deferred.size();
      cta_state_.deferred.push_back({*id, op, 0, false});
      ++cta_state_.barriers[*id].unfired;
      for (Chunk& c : cta_state_.threads[static_cast<std::size_t>(tid)].queue) {
        c.deferred.push_back(d);
        ++cta_state_.deferred[d].remaining;
      }
      if (cta_state_.deferred[d].remaining == 0)
        fire(cta_state_, d); // no copy pending: it arrives at once
    }
  }

  void step_op(std::size_t op, const tile::MbarrierArriveOp& m) {
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      if (m.pred) {
        const auto p = eval(op, *m.pred, "pred", env(cta_, tid));
        if (!p || *p == 0)
          continue;
      }
      if (const auto id = used_barrier(op, m.barrier, tid))
        arrive_on(cta_state_, *id);
    }
  }

  /// test_wait.parity passes when the current phase's parity differs from the operand: the
  /// phase of that parity just before it has completed. The copies the barrier's deferred
  /// arrivals wait for land first (as late as the wait can make them).
  void step_op(std::size_t op, const tile::MbarrierWaitOp& m) {
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      const auto id = used_barrier(op, m.barrier, tid);
      if (!id)
        continue;
      land_tracked(*id);
      const auto q = eval(op, m.parity, "parity", env(cta_, tid));
      if (!q)
        continue;
      const RefBarrier& bar = cta_state_.barriers[*id];
      if ((bar.phase % 2) == *q) {
        problems_.add(op, DiagId::check_mbarrier_hang,
                      "waits for an mbarrier phase that cannot complete", [&] {
                        return where(cta_, tid) + " waits on parity " + std::to_string(*q) +
                               " of '" + bar.name + "', whose phase " + std::to_string(bar.phase) +
                               " still needs " + std::to_string(bar.pending) + " of " +
                               std::to_string(bar.count) + " arrivals";
                      });
        continue;
      }
      auto& waited = cta_state_.threads[static_cast<std::size_t>(tid)].waited;
      auto [seen, fresh] = waited.try_emplace(*id, bar.phase - 1);
      if (!fresh)
        seen->second = std::max(seen->second, bar.phase - 1);
    }
  }

  /// Lands every copy that an unfired copy_arrive on barrier `id` waits for.
  void land_tracked(std::size_t id) {
    if (cta_state_.barriers[id].unfired == 0)
      return;
    for (std::int64_t t = 0; t < k_.block; ++t) {
      perform(
          cta_state_, t,
          [&](const Chunk& c) {
            return std::any_of(c.deferred.begin(), c.deferred.end(), [&](std::size_t d) {
              return cta_state_.deferred[d].barrier == id && !cta_state_.deferred[d].fired;
            });
          },
          false, id);
    }
  }

  std::optional<std::int64_t> eval(std::size_t op, const tile::Located<tile::ExprPtr>& x,
                                   const char* what, const tile::ExprEnv& e) {
    std::optional<std::int64_t> v;
    if (x.value) {
      v = naive_evaluate(*x.value, e);
    }
    if (!v) {
      problems_.add(op, DiagId::check_expr_not_evaluable, std::string(what) + " does not evaluate",
                    [&] { return where(e.bid, e.tid) + ": '" + x.text + "'"; });
    }
    return v;
  }

  /// The bytes one chunk reads (chunk_bytes, less by src_size or ignore_src);
  /// nullopt when pred is false or an operand does not evaluate (no copy).
  std::optional<std::int64_t> chunk_read_bytes(std::size_t op, const tile::ApplyOp& a,
                                               const tile::ExprEnv& e) {
    const std::int64_t chunk = a.chunk_bytes.value;
    if (a.pred) {
      auto p = eval(op, *a.pred, "pred", e);
      if (!p || *p == 0) {
        return std::nullopt;
      }
    }
    std::int64_t read_bytes = chunk;
    if (a.ignore_src) {
      auto v = eval(op, *a.ignore_src, "ignore_src", e);
      if (!v) {
        return std::nullopt;
      }
      if (*v != 0) {
        read_bytes = 0;
      }
    }
    if (a.src_size) {
      auto v = eval(op, *a.src_size, "src_size", e);
      if (!v) {
        return std::nullopt;
      }
      if (*v < 0 || *v > chunk) {
        problems_.add(op, DiagId::check_src_size_range,
                      "src_size outside 0..chunk_bytes (nothing copied)", [&] {
                        return where(e.bid, e.tid) + ": src_size " + std::to_string(*v) +
                               ", chunk_bytes " + std::to_string(chunk);
                      });
        return std::nullopt;
      }
      read_bytes = std::min(read_bytes, *v);
    }
    return read_bytes;
  }

  void step_op(std::size_t op, const tile::ApplyOp& a) {
    if (!prepare(op, a.dst, "dst") || !prepare(op, a.src, "src")) {
      return;
    }
    const NaivePlan& dp = plan(a.dst.value);
    const NaivePlan& sp = plan(a.src.value);
    const auto& ds = dp.shape();
    const auto& ss = sp.shape();
    const std::int64_t chunk = a.chunk_bytes.value;
    const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0; // (warp, lane) axes
    std::string why;
    if (ds.size() != ss.size()) {
      why = "dst has rank " + std::to_string(ds.size()) + ", src rank " + std::to_string(ss.size());
    } else if (ds.size() < groups + 1) {
      why = "expected at least " + std::to_string(groups + 1) + " axes, got " +
            std::to_string(ds.size());
    } else if (chunk <= 0 || ds.back() * dp.element_bytes() != chunk ||
               ss.back() * sp.element_bytes() != chunk) {
      why = "the last axis must hold chunk_bytes = " + std::to_string(chunk) +
            " bytes on both sides; dst holds " + std::to_string(ds.back() * dp.element_bytes()) +
            ", src " + std::to_string(ss.back() * sp.element_bytes());
    } else {
      for (std::size_t i = 0; i + 1 < ds.size(); ++i) {
        if (ds[i] != ss[i]) {
          why = "axis " + std::to_string(i) + " has size " + std::to_string(ds[i]) + " in dst, " +
                std::to_string(ss[i]) + " in src";
          break;
        }
      }
    }
    if (!why.empty()) {
      problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together",
                    [&] { return why; });
      return;
    }
    const Slot dslot = *slot(a.dst.value);
    const Slot sslot = *slot(a.src.value);
    // The repeat axes: everything but the group axes and the last.
    std::vector<std::int64_t> repeat_shape(ds.begin(), ds.end() - 1);
    const std::vector<std::string> axis_names =
        naive_axis_names(a.src.value, sp.levels.front().shape.size());
    for (std::int64_t bid = cta_; bid < cta_ + 1; ++bid) {
      Cta& cta = cta_state_;
      Buffer& db = buffer(dslot, cta);
      Buffer& sb = buffer(sslot, cta);
      for (std::int64_t tid = 0; tid < k_.block; ++tid) {
        const tile::ExprEnv e = env(bid, tid);
        std::vector<std::int64_t> coords(repeat_shape.size());
        if (groups == 2) {
          coords[0] = tid / 32;
          coords[1] = tid % 32;
          if (coords[0] >= ds[0] || coords[1] >= ds[1]) {
            problems_.add(op, DiagId::check_thread_outside_group,
                          "thread outside the (warp, lane) group axes (no copy)", [&] {
                            return where(bid, tid) + " is (warp " + std::to_string(coords[0]) +
                                   ", lane " + std::to_string(coords[1]) +
                                   "); the group axes are (" + std::to_string(ds[0]) + ", " +
                                   std::to_string(ds[1]) + ")";
                          });
            continue;
          }
        }
        ThreadState& ts = cta.threads[tid];
        const std::optional<AffineForm> dform = form(a.dst, e);
        const std::optional<AffineForm> sform = form(a.src, e);
        for_each_coord(repeat_shape, groups, coords, [&](const std::vector<std::int64_t>& rep) {
          // The operands for this chunk: its repeat axes' names bound to its coordinates.
          tile::ExprEnv chunk_env = e;
          for (std::size_t i = groups; i < rep.size() && i < axis_names.size(); ++i) {
            if (!axis_names[i].empty()) {
              chunk_env.axes[axis_names[i]] = rep[i];
            }
          }
          auto read_bytes = chunk_read_bytes(op, a, chunk_env);
          if (!read_bytes) {
            return;
          }
          Chunk c{op, ts.open_group, &db, {}, &sb, {}, *read_bytes};
          bool inside = true;
          auto side = [&](const tile::Located<tile::View>& v, const Buffer& b, std::int64_t n,
                          std::vector<std::int64_t>& offsets,
                          const std::optional<AffineForm>& fast) {
            std::vector<std::int64_t> full = rep;
            full.push_back(0);
            for (std::int64_t x = 0; x < n && inside; ++x) {
              full.back() = x;
              auto o = locate(op, v, b, e, full, fast);
              if (!o) {
                inside = false;
                return;
              }
              offsets.insert(offsets.end(), o->begin(), o->end());
            }
          };
          side(a.dst, db, ds.back(), c.dst_off, dform);
          side(a.src, sb, ss.back(), c.src_off, sform); // checked even when nothing is read
          if (!inside) {
            return;
          }
          if (db.shared) {
            issue(op, cta, bid, tid, db, c);
          }
          ts.queue.push_back(std::move(c));
        });
      }
    }
  }

  /// The issue of a copy into shared bytes: it may land any time before its wait, so it
  /// counts as the write for the barrier-phase check, and it must not meet another pending
  /// copy of the same bytes.
  void issue(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& db,
             const Chunk& c) {
    ref::SharedBytes& h = db.hz;
    for (std::int64_t o : c.dst_off) {
      if (h.pending[o] > 0 && !missing_commit(db, o)) {
        problems_.add(op, DiagId::check_pending_overlap,
                      "two pending copies write the same shared bytes", [&] {
                        return where(bid, tid) + " issues a copy into " + byte_text(db, o) +
                               ", which op " + std::to_string(h.pending_op[o] + 1) +
                               "'s copy by thread " + std::to_string(h.pending_tid[o]) +
                               " will still write (not yet waited)";
                      });
      }
      check_refill(op, cta, bid, tid, db, o, true);
      used_again(cta, h, o);
      ++h.pending[o];
      h.pending_tid[o] = static_cast<std::int32_t>(tid);
      h.pending_op[o] = op32(op);
      h.pending_group[o] = static_cast<std::int32_t>(c.group);
    }
  }

  /// The CTA being run, as a range for the ops' loops over CTAs.
  std::span<Cta> this_cta() { return std::span<Cta>(&cta_state_, 1); }

  /// A loop being run: its ForOp's index, and stop and step as evaluated at its entry.
  struct ActiveLoop {
    std::size_t begin = 0;
    std::string var;
    std::int64_t stop = 0;
    std::int64_t step = 0;
    std::int64_t groups_before = 0; ///< groups committed when the iteration began
  };

  /// Groups committed so far: the same on every thread (no op is conditional), thread 0's.
  std::int64_t groups_committed() const { return cta_state_.threads.front().open_group; }

  /// Every op but `for` and `end` continues with the next one.
  template <class Body>
  void run_op(std::size_t op, const Body& body) {
    next_op_ = op + 1;
    step_op(op, body);
  }

  void run_op(std::size_t op, const tile::ForOp& f) {
    // start, stop and step are the same for every thread of the CTA: thread 0's values.
    const tile::ExprEnv e = env(cta_, 0);
    auto start = naive_evaluate(*f.start.value, e);
    auto stop = naive_evaluate(*f.stop.value, e);
    auto step = naive_evaluate(*f.step.value, e);
    if (!start || !stop || !step || *step < 1) {
      problems_.add(op, DiagId::check_loop_bounds, "loop bounds without a value or a step below 1",
                    [&] { return where(cta_, 0) + " at loop '" + f.var.value + "'"; });
      next_op_ = f.end + 1;
      return;
    }
    if (*start >= *stop) {
      next_op_ = f.end + 1;
      return;
    }
    loop_values_[f.var.value] = *start;
    active_.push_back({op, f.var.value, *stop, *step, groups_committed()});
    next_op_ = op + 1;
  }

  void run_op(std::size_t op, const tile::EndOp& e) {
    ActiveLoop& l = active_.back();
    const std::int64_t groups = groups_committed() - l.groups_before;
    if (const auto* first =
            loop_commits_.iteration_done(l.begin, groups, [&] { return iteration_text(); })) {
      problems_.add(
          l.begin, DiagId::check_loop_commit_count,
          "iterations of this loop commit different numbers of groups",
          [&] {
            return "CTA " + std::to_string(cta_) + " (" + iteration_text() + ") commits " +
                   std::to_string(groups) + ", (" + first->iteration + ") committed " +
                   std::to_string(first->groups) +
                   "; a wait_group count fixed in the loop's body means a different group in "
                   "such iterations";
          },
          Severity::note);
    }
    l.groups_before = groups_committed();
    std::int64_t& v = loop_values_[l.var];
    v += l.step;
    if (v < l.stop) {
      next_op_ = e.begin + 1;
      return;
    }
    loop_values_.erase(l.var);
    active_.pop_back();
    next_op_ = op + 1;
  }

  void step_op(std::size_t, const tile::CommitGroupOp&) {
    for (Cta& cta : this_cta()) {
      for (ThreadState& ts : cta.threads) {
        ++ts.open_group;
      }
    }
  }

  void step_op(std::size_t op, const tile::WaitGroupOp& w) {
    if (w.n < 0) {
      problems_.add(op, DiagId::check_negative_wait, "negative wait_group count",
                    [&] { return "n = " + std::to_string(w.n); });
      return;
    }
    for (Cta& cta : this_cta()) {
      for (std::int64_t tid = 0; tid < k_.block; ++tid) {
        ThreadState& ts = cta.threads[tid];
        mark_uncommitted(op, ts);
        const std::int64_t limit = ts.open_group - w.n;
        slack_.close(ts.live, limit);
        ++ts.waits;
        slack_.start(ts.live, op, ts.open_group, w.n);
        perform(
            cta, tid, [&](const Chunk& c) { return c.group < limit; }, true);
      }
    }
  }

  void step_op(std::size_t, const tile::WaitAllOp&) {
    for (Cta& cta : this_cta()) {
      for (std::int64_t tid = 0; tid < k_.block; ++tid) {
        ThreadState& ts = cta.threads[tid];
        ++ts.open_group; // wait_all = commit_group; wait_group 0
        slack_.close(ts.live, ts.open_group);
        ++ts.waits;
        perform(cta, tid, [](const Chunk&) { return true; });
      }
    }
  }

  void step_op(std::size_t, const tile::CtaSyncOp&) {
    for (Cta& cta : this_cta()) {
      ++cta.epoch;
    }
  }

  void step_op(std::size_t op, const tile::FillOp& f) {
    if (!prepare(op, f.dst, "dst")) {
      return;
    }
    if (f.pattern.empty()) {
      problems_.add(op, DiagId::check_empty_pattern, "empty fill pattern",
                    [] { return std::string(); });
      return;
    }
    const NaivePlan& p = plan(f.dst.value);
    const Slot s = *slot(f.dst.value);
    const std::int64_t eb = p.element_bytes();
    for (std::int64_t bid = cta_; bid < cta_ + 1; ++bid) {
      Cta& cta = cta_state_;
      Buffer& b = buffer(s, cta);
      for (std::int64_t tid = 0; tid < k_.block; ++tid) {
        const tile::ExprEnv e = env(bid, tid);
        std::vector<std::int64_t> coords;
        std::int64_t element = 0;
        const std::optional<AffineForm> fast = form(f.dst, e);
        for_each_coord(p.shape(), 0, coords, [&](const std::vector<std::int64_t>& c) {
          if (auto o = locate(op, f.dst, b, e, c, fast)) {
            for (std::int64_t i = 0; i < eb; ++i) {
              const auto k = static_cast<std::size_t>(element * eb + i);
              write(op, cta, bid, tid, b, (*o)[i], f.pattern[k % f.pattern.size()], true);
            }
          }
          ++element;
        });
      }
    }
  }

  void step_op(std::size_t op, const tile::CopyOp& c) {
    if (!prepare(op, c.dst, "dst") || !prepare(op, c.src, "src")) {
      return;
    }
    const NaivePlan& dp = plan(c.dst.value);
    const NaivePlan& sp = plan(c.src.value);
    if (dp.shape() != sp.shape() || dp.element_bytes() != sp.element_bytes()) {
      problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together", [&] {
        return "dst " + coords_text(dp.shape()) + " of " + std::to_string(dp.element_bytes()) +
               "-byte elements, src " + coords_text(sp.shape()) + " of " +
               std::to_string(sp.element_bytes()) + "-byte elements";
      });
      return;
    }
    const Slot ds = *slot(c.dst.value);
    const Slot ss = *slot(c.src.value);
    for (std::int64_t bid = cta_; bid < cta_ + 1; ++bid) {
      Cta& cta = cta_state_;
      Buffer& db = buffer(ds, cta);
      Buffer& sb = buffer(ss, cta);
      for (std::int64_t tid = 0; tid < k_.block; ++tid) {
        const tile::ExprEnv e = env(bid, tid);
        std::vector<std::int64_t> coords;
        const std::optional<AffineForm> sform = form(c.src, e);
        const std::optional<AffineForm> dform = form(c.dst, e);
        for_each_coord(dp.shape(), 0, coords, [&](const std::vector<std::int64_t>& x) {
          auto so = locate(op, c.src, sb, e, x, sform);
          auto dO = locate(op, c.dst, db, e, x, dform);
          if (!so || !dO) {
            return;
          }
          // ld, then st: the whole element is read before it is written.
          std::vector<std::pair<std::uint8_t, bool>> element;
          for (std::int64_t o : *so) {
            element.push_back(read(op, cta, bid, tid, sb, o));
          }
          for (std::size_t i = 0; i < element.size(); ++i) {
            write(op, cta, bid, tid, db, (*dO)[i], element[i].first, element[i].second);
          }
        });
      }
    }
  }

  const ReferenceInput& in_;
  const tile::Kernel& k_;
  std::vector<Buffer> globals_;
  std::vector<Buffer> shared_template_; ///< each shared tensor as a CTA starts
  Cta cta_state_;                       ///< the CTA being run
  ref::WaitSlack slack_;
  ref::LoopCommits loop_commits_;
  std::map<const tile::Tensor*, Slot> slots_;
  std::map<std::string, Slot, std::less<>> by_name_;
  std::map<std::string, std::int64_t, std::less<>> params_;
  std::int64_t cta_ = 0;    ///< the CTA whose ops are running
  std::size_t next_op_ = 0; ///< the op to run after the current one
  std::map<std::string, std::int64_t, std::less<>> loop_values_; ///< the live loop variables
  std::vector<ActiveLoop> active_;                               ///< innermost last
  std::map<const tile::View*, NaivePlan> plans_;
  Problems problems_;
};

} // namespace

ReferenceOutput evaluate_reference(const ReferenceInput& in) {
  if (in.kernel == nullptr) {
    ReferenceOutput out;
    out.problems.push_back("kernel: no kernel given");
    out.problem_ops.push_back(ReferenceOutput::kernel_problem);
    out.findings.push_back(
        {DiagId::check_no_kernel, ReferenceOutput::kernel_problem, "no kernel given"});
    return out;
  }
  return Evaluator(in).run();
}

Diagnostics findings_as_diagnostics(const tile::Kernel& k, const ReferenceOutput& out) {
  Diagnostics ds;
  for (const ReferenceFinding& f : out.findings) {
    Diagnostic d(f.id, "running the spec's ops: " + f.message, f.severity);
    d.file = k.file;
    if (f.op != ReferenceOutput::kernel_problem && f.op < k.ops.size()) {
      const tile::SourcePos& pos = k.ops[f.op].pos;
      d.line = pos.line;
      d.column = pos.column;
      d.source_line = pos.source_line;
      if (!pos.file.empty()) {
        d.file = pos.file;
      }
    }
    ds.add(std::move(d));
  }
  return ds;
}

} // namespace ptxgen::driver
