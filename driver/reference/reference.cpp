#include "driver/reference/reference.hpp"

#include "driver/reference/affine_view.hpp"
#include "driver/reference/cta_trace.hpp"
#include "driver/reference/hazards.hpp"
#include "driver/reference/naive_expr.hpp"
#include "driver/reference/naive_view.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace ptxgen::driver {
namespace {

constexpr std::size_t kernel_level = std::numeric_limits<std::size_t>::max(); ///< not one op
/// The largest granule of shared hazard state: 64 bytes (Buffer::shift).
constexpr int max_granule_shift = 6;

/// A run of contiguous bytes of one buffer.
struct Run {
  std::int64_t off = 0;
  std::int64_t len = 0;
};

/// The bytes of an access (one element, one chunk, one row of elements), in the order its
/// bytes are accessed, as runs: the first inline (no allocation for a contiguous access),
/// the rest (non-contiguous views only) in `more`. A run that continues the last one merges
/// with it.
struct Runs {
  Run first;
  std::vector<Run> more;

  void append(Run r) {
    if (r.len <= 0)
      return;
    Run& last = more.empty() ? first : more.back();
    if (last.len == 0) {
      last = r;
    } else if (last.off + last.len == r.off) {
      last.len += r.len;
    } else {
      more.push_back(r);
    }
  }
  std::int64_t bytes() const {
    std::int64_t n = first.len;
    for (const Run& r : more)
      n += r.len;
    return n;
  }
  bool contains(std::int64_t off) const {
    auto in = [&](const Run& r) { return off >= r.off && off < r.off + r.len; };
    return in(first) || std::any_of(more.begin(), more.end(), in);
  }
  template <class F>
  void each(F&& f) const {
    if (first.len > 0)
      f(first);
    for (const Run& r : more)
      f(r);
  }
};

struct Buffer {
  std::string name;
  bool shared = false;
  std::size_t index = 0;           ///< its slot (Slot::index) among the shared or global ones
  std::vector<std::int64_t> shape; ///< the tensor's, for the element of a byte in findings
  std::int64_t element_bytes = 1;
  std::vector<std::uint8_t> bytes;
  /// Per byte: 1 when it holds a defined value. A global tensor's starts empty, which means
  /// every byte is defined, and is filled in (put_defined) only when undefined bytes reach it.
  std::vector<std::uint8_t> defined;
  /// Shared tensors only: the ordering state, one entry per granule of 2^shift bytes. Every
  /// access starts and ends on a granule boundary (the reference checks each one and starts
  /// over with a smaller granule when one does not), so the bytes of a granule see the same
  /// accesses in the same order and have the same state: one entry stands for all of them.
  ref::SharedBytes hz;
  int shift = 0;

  std::int64_t granule() const { return std::int64_t{1} << shift; }
};

/// An op index as the hazard state stores it.
std::int32_t op32(std::size_t op) {
  return static_cast<std::int32_t>(op);
}

/// One queued chunk of an apply: performed at the issuing thread's wait.
struct Chunk {
  // Members set one by one: an aggregate's zeroing of the whole (a `rep stos`) and the stores
  // into it right after cost more than the rest of an issue.
  Chunk() = default;
  Chunk(std::size_t op_, std::int64_t group_, Buffer* dst_, Buffer* src_, std::int64_t read)
      : op(op_), group(group_), dst(dst_), src(src_), read_bytes(read) {}

  std::size_t op = 0;
  std::int64_t group = 0;
  Buffer* dst = nullptr;
  Runs dst_runs;
  Buffer* src = nullptr;
  Runs src_runs;
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
  /// `count`: the instances this call stands for (the bytes of a granule).
  void add(std::size_t op, DiagId id, const std::string& kind,
           const std::function<std::string()>& detail, Severity severity = Severity::error,
           std::int64_t count = 1) {
    ++adds_;
    auto [it, fresh] = index_.try_emplace({op, id, kind}, entries_.size());
    if (fresh) {
      entries_.push_back({op, id, kind, detail(), count, severity, tag_, false});
    } else {
      entries_[it->second].count += count;
    }
  }

  /// A problem that is the cause of others: reported once, without a count of the accesses
  /// that ran into it.
  void add_cause(std::size_t op, DiagId id, const std::string& kind,
                 const std::function<std::string()>& detail) {
    ++adds_;
    if (index_.try_emplace({op, id, kind}, entries_.size()).second) {
      entries_.push_back({op, id, kind, detail(), 1, Severity::error, tag_, true});
    }
  }

  /// A batch: several elements' reads, then their writes, where the naive order alternates
  /// (element 0's read, its write, element 1's read, ...). Each problem found first in the
  /// batch is tagged with its place in the naive order (tag(): element * 2 + phase), and
  /// end_batch() puts them in that order. Exact when no problem can come from both phases
  /// (the caller batches only where one side is a global tensor, which has no hazards).
  std::size_t begin_batch() const { return entries_.size(); }
  void tag(std::int64_t t) { tag_ = t; }
  void end_batch(std::size_t mark) {
    tag_ = 0;
    if (entries_.size() - mark < 2)
      return;
    std::stable_sort(entries_.begin() + static_cast<std::ptrdiff_t>(mark), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.tag < b.tag; });
    for (std::size_t i = mark; i < entries_.size(); ++i)
      index_[{entries_[i].op, entries_[i].id, entries_[i].kind}] = i;
  }

  /// How many findings (instances) were added so far: unchanged over a run, it found nothing.
  std::uint64_t adds() const { return adds_; }

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
    std::int64_t tag;   ///< its place in a batch (begin_batch)
    bool cause = false; ///< from add_cause: counted once
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
  std::int64_t tag_ = 0;
  std::uint64_t adds_ = 0;
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

/// Calls f(x) for each row (the last axis) of `shape`, row major, with x the coordinates of
/// its first element (last coordinate 0); for a shape of rank 0, once with no coordinates.
template <class F>
void for_each_row(const std::vector<std::int64_t>& shape, F&& f) {
  const std::vector<std::int64_t> outer(shape.begin(), shape.end() - (shape.empty() ? 0 : 1));
  std::vector<std::int64_t> coords;
  std::vector<std::int64_t> x(shape.size(), 0);
  for_each_coord(outer, 0, coords, [&](const std::vector<std::int64_t>& c) {
    std::copy(c.begin(), c.end(), x.begin());
    f(static_cast<const std::vector<std::int64_t>&>(x));
  });
}

/// memcpy of `n` bytes, with the chunk sizes of cp.async (4, 8, 16) as constants: a call of
/// the library's memcpy costs more than such a copy itself.
inline void copy_bytes(std::uint8_t* dst, const std::uint8_t* src, std::int64_t n) {
  switch (n) {
  case 16:
    std::memcpy(dst, src, 16);
    break;
  case 8:
    std::memcpy(dst, src, 8);
    break;
  case 4:
    std::memcpy(dst, src, 4);
    break;
  default:
    std::memcpy(dst, src, static_cast<std::size_t>(n));
  }
}

/// Calls f(d, s) at each coordinate of the axes from .. to - 1 of `shape` (row major; `x`,
/// whose coordinates there start at 0, follows), d and s being two affine forms' offsets
/// there (d and s at the start), stepped by their strides: one addition per step, not a sum
/// per axis. Stops at the first f that returns false, and then returns false.
template <class F>
bool each_point(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to,
                std::vector<std::int64_t>& x, std::int64_t d, std::int64_t s,
                const std::vector<std::int64_t>& dstride, const std::vector<std::int64_t>& sstride,
                F& f) {
  if (from == to) {
    return f(d, s);
  }
  for (x[from] = 0; x[from] < shape[from]; ++x[from], d += dstride[from], s += sstride[from]) {
    if (!each_point(shape, from + 1, to, x, d, s, dstride, sstride, f)) {
      return false;
    }
  }
  x[from] = 0;
  return true;
}

/// The offsets of each coordinate of the axes from .. to - 1 of `shape` (row major, the others
/// 0) under two views' strides, relative to coordinate 0, and their extremes: the same for
/// every thread of an op (a view's strides do not depend on the thread), so a thread's points
/// are its base plus these, and its base alone says whether all of them are in bounds.
struct Points {
  std::vector<std::int64_t> d;
  std::vector<std::int64_t> s;
  std::int64_t d_low = 0, d_high = 0, s_low = 0, s_high = 0;
  /// d[i] = i * d_step for every i (d_even), and the same for s: one run of a trace.
  bool d_even = true, s_even = true;
  std::int64_t d_step = 0, s_step = 0;

  Points(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to,
         const std::vector<std::int64_t>& dstride, const std::vector<std::int64_t>& sstride) {
    std::vector<std::int64_t> x(shape.size(), 0);
    auto add = [&](std::int64_t dd, std::int64_t ss) {
      d.push_back(dd);
      s.push_back(ss);
      d_low = std::min(d_low, dd);
      d_high = std::max(d_high, dd);
      s_low = std::min(s_low, ss);
      s_high = std::max(s_high, ss);
      return true;
    };
    each_point(shape, from, to, x, 0, 0, dstride, sstride, add);
    d_step = d.size() > 1 ? d[1] : 0;
    s_step = s.size() > 1 ? s[1] : 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      d_even = d_even && d[i] == static_cast<std::int64_t>(i) * d_step;
      s_even = s_even && s[i] == static_cast<std::int64_t>(i) * s_step;
    }
  }

  /// True when every point of the thread whose first point is at d0 and s0 has its `len`
  /// bytes inside tensors of dsize and ssize bytes.
  bool inside(std::int64_t d0, std::int64_t dsize, std::int64_t s0, std::int64_t ssize,
              std::int64_t len) const {
    return d.empty() || (d0 + d_low >= 0 && d0 + d_high + len <= dsize && s0 + s_low >= 0 &&
                         s0 + s_high + len <= ssize);
  }
};

/// True when one of the axes from .. to - 1 of `shape` is empty: no coordinates at all.
bool any_empty(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to) {
  return std::any_of(shape.begin() + static_cast<std::ptrdiff_t>(from),
                     shape.begin() + static_cast<std::ptrdiff_t>(to),
                     [](std::int64_t n) { return n <= 0; });
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
  /// `take`: the caller's input, whose global bytes the launch may take instead of copying
  /// (nullptr: copy them all).
  Evaluator(const ReferenceInput& in, ReferenceInput* take)
      : in_(in), k_(*in.kernel), slack_(k_.ops.size()), loop_commits_(k_.ops.size()), take_(take) {}

  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  /// The launch, one CTA after the other.
  ReferenceOutput run() {
    if (!launchable()) {
      return output();
    }
    set_up();
    run_ctas();
    return output();
  }

  /// True when a CTA may read global bytes another writes: a global tensor both read and
  /// written by the ops (then the order of the CTAs matters).
  bool ctas_may_meet() {
    std::set<const tile::Tensor*> read;
    std::set<const tile::Tensor*> written;
    auto note = [&](const tile::Located<tile::View>& v, std::set<const tile::Tensor*>& into) {
      if (v.value.tensor != nullptr && v.value.tensor->space == tile::Space::global) {
        into.insert(v.value.tensor);
      }
    };
    for (const tile::Op& op : k_.ops) {
      if (const auto* a = std::get_if<tile::ApplyOp>(&op.body)) {
        note(a->dst, written);
        note(a->src, read);
      } else if (const auto* c = std::get_if<tile::CopyOp>(&op.body)) {
        note(c->dst, written);
        note(c->src, read);
      } else if (const auto* f = std::get_if<tile::FillOp>(&op.body)) {
        note(f->dst, written);
      }
    }
    return std::any_of(read.begin(), read.end(),
                       [&](const tile::Tensor* t) { return written.count(t) != 0; });
  }

private:
  /// False (with the problem) for an empty launch.
  bool launchable() {
    if (k_.grid > 0 && k_.block > 0) {
      return true;
    }
    problems_.add(kernel_level, DiagId::check_empty_launch, "empty launch", [&] {
      return "grid " + std::to_string(k_.grid) + ", block " + std::to_string(k_.block);
    });
    return false;
  }

  /// Every CTA, one after the other. CTAs are independent: each runs the ops on its own, in
  /// order, its threads in lockstep op by op; a `for` repeats the ops up to its `end`. One
  /// CTA's state (shared tensors, threads) at a time.
  /// A CTA is replayed (replay_cta) where it can be, else runs with every check (run_cta).
  void run_ctas() {
    for (cta_ = 0; cta_ < k_.grid; ++cta_) {
      if (recorded_ && replay_cta()) {
        slack_.add_runs(recorded_runs_);
        ++replayed_;
        continue;
      }
      run_cta();
    }
  }

  /// CTA cta_ with every check. Where CTAs may be replayed its trace is recorded, and kept
  /// for the CTAs after it when it found nothing.
  void run_cta() {
    const std::uint64_t adds = problems_.adds();
    std::vector<std::int64_t> runs;
    if (replayable_) {
      runs = slack_.all_runs();
      trace_.record();
    }
    cta_state_.shared = shared_template_;
    cta_state_.epoch = 0;
    cta_state_.threads.assign(static_cast<std::size_t>(k_.block), ThreadState{});
    cta_state_.barriers.clear();
    cta_state_.barrier_ids.clear();
    cta_state_.deferred.clear();
    for (std::size_t i = 0; i < k_.ops.size();) {
      if (replayable_) {
        trace_.note_op(i);
      }
      std::visit([&](const auto& body) { run_op(i, body); }, k_.ops[i].body);
      i = next_op_;
    }
    for (std::int64_t t = 0; t < k_.block; ++t) {
      finish_thread(cta_, t);
    }
    recorded_ = replayable_ && problems_.adds() == adds;
    if (recorded_) {
      recorded_runs_ = slack_.all_runs();
      for (std::size_t op = 0; op < runs.size(); ++op) {
        recorded_runs_[op] -= runs[op];
      }
    }
  }

  /// The output after the CTAs ran: the last use of the global buffers.
  ReferenceOutput output() {
    ReferenceOutput out;
    report_loose_waits();
    for (Buffer& g : globals_) {
      out.global[g.name] = std::move(g.bytes);
      // Empty when every byte is defined, whatever path (row or element) got it there.
      if (!g.defined.empty() && std::memchr(g.defined.data(), 0, g.defined.size()) == nullptr) {
        g.defined.clear();
      }
      out.defined[g.name] = std::move(g.defined);
    }
    finish(out);
    out.replayed = replayed_;
    return out;
  }

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
        } else if (it->second.size() == size && take_ != nullptr) {
          b.bytes = std::move(take_->global.at(t.name));
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
        b.index = globals_.size(); // b.defined stays empty: all defined
        slots_[&t] = {false, globals_.size()};
        by_name_[t.name] = {false, globals_.size()};
        globals_.push_back(std::move(b));
      } else {
        b.shared = true;
        b.bytes.assign(size, 0);
        b.defined.assign(size, 0);
        b.index = shared_template_.size();
        b.shift = granule_shift(t, size);
        b.hz.reset(size >> b.shift);
        slots_[&t] = {true, shared_template_.size()};
        by_name_[t.name] = {true, shared_template_.size()};
        shared_template_.push_back(std::move(b));
      }
    }
    for (const auto& p : k_.params) {
      params_[p.name] = static_cast<std::int64_t>(p.value);
    }
    replayable_ = replayable();
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

  /// The first granule of shared tensor `t` (`size` bytes): at most max_granule_shift, no
  /// more than the alignment of its size, of the chunks that applies copy into or out of it
  /// and of the rows that fills and copies write or read (the runs they access it by where
  /// their views are contiguous). An access it does not fit splits it (fit_granules: a view
  /// that is not contiguous). Single bytes on the naive path.
  int granule_shift(const tile::Tensor& t, std::size_t size) {
    if (!in_.fast || size == 0) {
      return 0;
    }
    int shift = std::min(max_granule_shift, std::countr_zero(size));
    auto align = [&](std::int64_t bytes) {
      shift = std::min(shift, std::countr_zero(static_cast<std::uint64_t>(bytes)));
    };
    auto on_t = [&](const tile::Located<tile::View>& v) {
      return v.value.tensor == &t || (v.value.tensor != nullptr && v.value.tensor->name == t.name);
    };
    auto row = [&](const tile::Located<tile::View>& v) {
      const NaivePlan& p = plan(v.value);
      if (on_t(v) && p.ok()) {
        align(static_cast<std::int64_t>(p.element_bytes()) *
              (p.shape().empty() ? 1 : p.shape().back()));
      }
    };
    for (const tile::Op& op : k_.ops) {
      if (const auto* a = std::get_if<tile::ApplyOp>(&op.body)) {
        if (on_t(a->dst) || on_t(a->src)) {
          align(a->chunk_bytes.value);
        }
      } else if (const auto* c = std::get_if<tile::CopyOp>(&op.body)) {
        row(c->dst);
        row(c->src);
      } else if (const auto* f = std::get_if<tile::FillOp>(&op.body)) {
        row(f->dst);
      }
    }
    return std::max(shift, 0);
  }

  /// A view's plan and, where it has one, its affine skeleton: computed once per view.
  struct ViewInfo {
    NaivePlan plan;
    std::optional<AffineSkeleton> skeleton;
    /// Where skeleton->thread_part_fixed(): per thread, thread_base(0, its env) (no_part where
    /// an index has no value or lies outside its axis), filled in at the view's first op.
    std::vector<std::int64_t> thread_part;
  };
  static constexpr std::int64_t no_part = std::numeric_limits<std::int64_t>::min();

  ViewInfo& view_info(const tile::View& v) {
    auto it = views_.find(&v);
    if (it == views_.end()) {
      ViewInfo info{naive_plan(v), std::nullopt};
      info.skeleton = affine_skeleton(info.plan, v);
      it = views_.emplace(&v, std::move(info)).first;
    }
    return it->second;
  }

  const NaivePlan& plan(const tile::View& v) { return view_info(v).plan; }

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

  Buffer& buffer(Slot s, Cta& cta) { return s.shared ? cta.shared[s.index] : (globals_)[s.index]; }

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

  /// A view's affine form for one thread (the fast path): its skeleton and its base.
  struct Fast {
    const AffineSkeleton* skeleton = nullptr;
    std::int64_t base = 0;

    std::int64_t offset(const std::vector<std::int64_t>& coords) const {
      std::int64_t o = base;
      for (std::size_t a = 0; a < coords.size(); ++a)
        o += coords[a] * skeleton->stride[a];
      return o;
    }
  };

  /// A view's affine form for the threads of one op: its skeleton and the part of its base
  /// that no thread changes (evaluated once per op), where it has them.
  struct OpForm {
    const AffineSkeleton* skeleton = nullptr;
    std::optional<std::int64_t> shared;
    const std::vector<std::int64_t>* thread_part = nullptr; ///< ViewInfo's, where it has one
  };

  /// The view's OpForm for the op's CTA and loop values in `e` (none on the naive path).
  OpForm op_form(const tile::Located<tile::View>& v, const tile::ExprEnv& e) {
    if (!in_.fast) {
      return {};
    }
    ViewInfo& info = view_info(v.value);
    if (!info.skeleton) {
      return {};
    }
    const bool fixed = info.skeleton->thread_part_fixed();
    if (fixed && info.thread_part.empty()) {
      tile::ExprEnv te = e; // the thread's indices use nothing else of it
      info.thread_part.resize(static_cast<std::size_t>(k_.block));
      for (std::int64_t tid = 0; tid < k_.block; ++tid) {
        te.tid = tid;
        info.thread_part[static_cast<std::size_t>(tid)] =
            info.skeleton->thread_base(0, te).value_or(no_part);
      }
    }
    return {&*info.skeleton, info.skeleton->shared_base(e), fixed ? &info.thread_part : nullptr};
  }

  /// The view's affine form for one thread, or nullopt: naive_locate then. Inlined: it runs
  /// for every thread of every op, most often as one addition.
  [[gnu::always_inline]] static std::optional<Fast> form(const OpForm& f, const tile::ExprEnv& e) {
    if (f.skeleton == nullptr || !f.shared) {
      return std::nullopt;
    }
    if (f.thread_part != nullptr) {
      const std::int64_t part = (*f.thread_part)[static_cast<std::size_t>(e.tid)];
      if (part == no_part) {
        return std::nullopt;
      }
      return Fast{f.skeleton, *f.shared + part};
    }
    const auto base = f.skeleton->thread_base(*f.shared, e);
    if (!base) {
      return std::nullopt;
    }
    return Fast{f.skeleton, *base};
  }

  /// Appends the bytes of one element to `out`; false (with a problem) when any byte is
  /// outside the tensor. `fast`: the view's affine form for this thread, if it has one.
  bool locate(std::size_t op, const tile::Located<tile::View>& v, const Buffer& b,
              const tile::ExprEnv& e, const std::vector<std::int64_t>& coords,
              const std::optional<Fast>& fast, Runs& out) {
    if (fast) {
      const std::int64_t first = fast->offset(coords);
      const std::int64_t eb = fast->skeleton->element_bytes;
      if (first >= 0 && first + eb <= static_cast<std::int64_t>(b.bytes.size())) {
        out.append({first, eb});
        return true;
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
      return false;
    }
    for (std::int64_t o : loc.offsets) {
      out.append({o, 1});
    }
    return true;
  }

  /// Elements 0 .. n-1 of the last axis at `coords` (whose last coordinate is 0, or left out)
  /// as one run, when the thread's form has them contiguous and inside the tensor; else
  /// nullopt (the caller goes element by element, and reports what is outside).
  static std::optional<Run> row(const std::optional<Fast>& fast, const Buffer& b,
                                const std::vector<std::int64_t>& coords, std::int64_t n) {
    if (!fast || n <= 0) {
      return std::nullopt;
    }
    if (!contiguous(*fast, n)) {
      return std::nullopt;
    }
    const std::int64_t eb = fast->skeleton->element_bytes;
    const std::int64_t first = fast->offset(coords);
    if (first < 0 || first + n * eb > static_cast<std::int64_t>(b.bytes.size())) {
      return std::nullopt;
    }
    return Run{first, n * eb};
  }

  /// An access of a CTA that runs with every check, to its trace where CTAs may be replayed.
  void trace(ref::CtaTrace::Kind kind, const Buffer& b, std::int64_t tid, Run r) {
    if (replayable_) {
      trace_.note(kind, static_cast<std::uint32_t>(b.index), tid, r.off, r.len);
    }
  }

  /// Makes run `r` of shared `b` start and end on granules: where it does not, b's granules
  /// (and those of the tensor as the next CTAs start it) are split to the size it allows.
  /// Exact: the bytes of a granule have the same state, so each part starts with it, and each
  /// problem is counted per byte whatever the granule.
  void fit_granules(Buffer& b, Run r) {
    const std::int64_t mask = b.granule() - 1;
    if (((r.off | r.len) & mask) == 0) {
      return;
    }
    const int shift = std::countr_zero(static_cast<std::uint64_t>(r.off | r.len));
    b.hz.refine(b.shift - shift);
    b.shift = shift;
    Buffer& start = shared_template_[b.index];
    if (start.shift > shift) {
      start.shift = shift;
      start.hz.reset(start.bytes.size() >> shift);
    }
  }

  /// Calls f(granule index, its first byte) for each granule of run `r` of shared `b`.
  template <class F>
  void each_granule(Buffer& b, Run r, F&& f) {
    fit_granules(b, r);
    const std::int64_t end = (r.off + r.len) >> b.shift;
    for (std::int64_t g = r.off >> b.shift; g < end; ++g) {
      f(static_cast<std::size_t>(g), g << b.shift);
    }
  }

  /// A thread's read of one granule (at byte `off`) of shared `b`, with the ordering checks,
  /// each problem counted once per byte of the granule. True when the missing commit_group
  /// is the cause of what the read would report: the bytes' values are moot.
  bool read_granule(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b,
                    std::size_t g, std::int64_t off) {
    bool moot = false;
    ref::SharedBytes& h = b.hz;
    const std::int64_t w = b.granule();
    if (h.pending[g] > 0 && missing_commit(b, g)) {
      moot = true;
    } else if (h.pending[g] > 0) {
      problems_.add(
          op, DiagId::check_read_pending,
          "reads shared bytes that a pending (not yet waited) copy will write",
          [&] {
            return where(bid, tid) + " reads " + byte_text(b, off) + ", which op " +
                   std::to_string(h.pending_op[g] + 1) + "'s copy by thread " +
                   std::to_string(h.pending_tid[g]) + " will write: it is not yet waited" +
                   pending_cause(cta, h, g, off);
          },
          Severity::error, w);
    }
    const std::int32_t guard = h.guard_barrier[g];
    if (guard != ref::none) {
      const auto& waited = cta.threads[static_cast<std::size_t>(tid)].waited;
      const auto it = waited.find(static_cast<std::size_t>(guard));
      if (it == waited.end() || it->second < h.guard_phase[g]) {
        problems_.add(
            op, DiagId::check_mbarrier_unwaited_read,
            "reads shared bytes an mbarrier phase guards before waiting for that phase",
            [&] {
              return where(bid, tid) + " reads " + byte_text(b, off) +
                     ", landed by copies whose copy_arrive arrives in phase " +
                     std::to_string(h.guard_phase[g]) + " of barrier '" +
                     cta.barriers[static_cast<std::size_t>(guard)].name +
                     "'; the thread has not waited for that phase";
            },
            Severity::error, w);
      }
    } else if (h.writer[g] >= 0 && h.writer[g] != tid && h.write_epoch[g] == cta.epoch) {
      problems_.add(
          op, DiagId::check_read_without_sync,
          "reads shared bytes another thread wrote with no cta_sync in between",
          [&] {
            return where(bid, tid) + " reads " + byte_text(b, off) + " written by thread " +
                   std::to_string(h.writer[g]);
          },
          Severity::error, w);
    }
    used_again(cta, h, g);
    h.note_read(g, static_cast<std::int32_t>(tid), cta.epoch, op32(op));
    return moot;
  }

  /// A thread's read of run `r` of `b`: the ordering checks of each granule of a shared one.
  /// `moot(offset in r, bytes)` is called for the granules whose values are moot. In a batch
  /// (`eb` > 0), each granule's problems are tagged with its element (of `eb` bytes).
  template <class Moot>
  void read_run(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b, Run r,
                std::int64_t eb, Moot&& moot) {
    if (!b.shared) {
      return;
    }
    trace(ref::CtaTrace::Kind::read, b, tid, r);
    // A batch's element of a granule: a shift where eb is a power of two (a division per
    // granule costs more than the granule's checks).
    const int eb_shift = eb > 0 && std::has_single_bit(static_cast<std::uint64_t>(eb))
                             ? std::countr_zero(static_cast<std::uint64_t>(eb))
                             : -1;
    each_granule(b, r, [&](std::size_t g, std::int64_t off) {
      if (eb > 0) {
        problems_.tag((eb_shift >= 0 ? (off - r.off) >> eb_shift : (off - r.off) / eb) * 2);
      }
      if (read_granule(op, cta, bid, tid, b, g, off)) {
        moot(off - r.off, b.granule());
      }
    });
  }

  /// Why a pending granule's group is not complete, from the issuing thread's last
  /// wait_group: the count that would have completed it, or no wait since its commit.
  static std::string pending_cause(const Cta& cta, const ref::SharedBytes& h, std::size_t g,
                                   std::int64_t off) {
    const ThreadState& ts = cta.threads[static_cast<std::size_t>(h.pending_tid[g])];
    for (const Chunk& c : ts.queue) {
      if (c.op != static_cast<std::size_t>(h.pending_op[g]) || c.deferred.empty() ||
          !c.dst_runs.contains(off)) {
        continue;
      }
      return " (a copy_arrive on barrier '" +
             cta.barriers[cta.deferred[c.deferred.front()].barrier].name +
             "' tracks it: read it after the mbarrier_wait for that phase)";
    }
    const std::int64_t group = h.pending_group[g];
    if (ts.live.op == ref::none || group >= ts.live.open) {
      return " (no wait_group since its commit_group)";
    }
    return "; that thread's last wait, op " + std::to_string(ts.live.op + 1) + " (wait_group " +
           std::to_string(ts.live.n) + "), left its newest " + std::to_string(ts.live.n) +
           " groups pending: wait_group " + std::to_string(ts.live.open - 1 - group) +
           " there would complete this one";
  }

  /// A granule a wait_group landed is read or written again: while that wait is still its
  /// thread's newest, the wait had to complete the granule's group.
  static void used_again(Cta& cta, ref::SharedBytes& h, std::size_t g) {
    const std::int32_t owner = h.land_tid[g];
    if (owner == ref::none) {
      return;
    }
    ThreadState& ts = cta.threads[static_cast<std::size_t>(owner)];
    if (ts.waits == h.land_seq[g] && ts.live.op != ref::none) {
      ref::WaitSlack::needed(ts.live, h.land_group[g]);
    }
    h.land_tid[g] = ref::none; // a second use says the same
  }

  /// A write (store, or the issue of a copy) into shared bytes another thread read in this
  /// barrier phase: the reader may still see the new bytes (refill without a barrier).
  void check_refill(std::size_t op, const Cta& cta, std::int64_t bid, std::int64_t tid,
                    const Buffer& b, std::size_t g, std::int64_t off, bool copy) {
    const std::int32_t other = b.hz.other_reader(g, static_cast<std::int32_t>(tid), cta.epoch);
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
                 std::to_string(b.hz.read_op[g] + 1) +
                 " since the last cta_sync; add op = \"cta_sync\" between that read and this "
                 "write";
        },
        Severity::error, b.granule());
  }

  /// When pending granule `g` of `b` belongs to a copy that a wait_group passed over because
  /// no commit_group had closed its group, reports that missing commit_group (at the wait) and
  /// returns true: it is the cause of whatever the access would otherwise report.
  bool missing_commit(const Buffer& b, std::size_t g) {
    const std::int32_t wait = b.hz.skipped_by_wait[g];
    if (wait == ref::none) {
      return false;
    }
    report_missing_commit(static_cast<std::size_t>(wait),
                          static_cast<std::size_t>(b.hz.skipped_apply[g]));
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
      ref::SharedBytes& h = c.dst->hz;
      c.dst_runs.each([&](Run r) {
        each_granule(*c.dst, r, [&](std::size_t g, std::int64_t) {
          if (h.skipped_by_wait[g] == ref::none) {
            h.skipped_by_wait[g] = op32(wait);
            h.skipped_apply[g] = op32(c.op);
          }
        });
      });
    }
  }

  /// A plain store (fill, copy) by a thread into run `r` of `b`, whose bytes and
  /// definedness the caller has set: the ordering checks and the writer of a shared one, the
  /// definedness check of a global one (tagged as the write of its element in a batch, `eb`
  /// > 0).
  void write_run(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b, Run r,
                 std::int64_t eb) {
    if (!b.shared) {
      store_global(op, bid, tid, b, r, eb);
      return;
    }
    trace(ref::CtaTrace::Kind::write, b, tid, r);
    ref::SharedBytes& h = b.hz;
    each_granule(b, r, [&](std::size_t g, std::int64_t off) {
      if (h.pending[g] > 0 && !missing_commit(b, g)) {
        problems_.add(
            op, DiagId::check_write_pending,
            "writes shared bytes that a pending (not yet waited) copy will write",
            [&] {
              return where(bid, tid) + " writes " + byte_text(b, off) + ", which op " +
                     std::to_string(h.pending_op[g] + 1) + "'s copy by thread " +
                     std::to_string(h.pending_tid[g]) + " will write";
            },
            Severity::error, b.granule());
      }
      check_refill(op, cta, bid, tid, b, g, off, false);
      used_again(cta, h, g);
      store_granule(cta, tid, h, g);
    });
  }

  /// The writer of a shared granule.
  static void store_granule(const Cta& cta, std::int64_t tid, ref::SharedBytes& h, std::size_t g) {
    h.writer[g] = static_cast<std::int32_t>(tid);
    h.write_epoch[g] = cta.epoch;
    h.land_tid[g] = ref::none;
    h.guard_barrier[g] = ref::none;
  }

  /// Bytes stored into run `r` of global `b`: each undefined one is a problem.
  void store_global(std::size_t op, std::int64_t bid, std::int64_t tid, const Buffer& b, Run r,
                    std::int64_t eb) {
    if (b.defined.empty()) {
      return; // every byte defined
    }
    const std::uint8_t* d = b.defined.data() + r.off;
    const auto* undefined = static_cast<const std::uint8_t*>(std::memchr(d, 0, r.len));
    if (undefined == nullptr) {
      return;
    }
    const std::int64_t first = undefined - d;
    if (eb > 0) {
      problems_.tag(first / eb * 2 + 1);
    }
    problems_.add(
        op, DiagId::check_uninitialised_to_global,
        "uninitialised shared bytes reach a global tensor",
        [&] {
          return where(bid, tid) + " writes byte " + std::to_string(r.off + first) + " of '" +
                 b.name + "'";
        },
        Severity::error, std::count(undefined, d + r.len, std::uint8_t{0}));
  }

  /// Sets the definedness of `len` bytes of `db` from `off` to `src` (nullptr: all defined).
  /// A global tensor's (empty: all defined) is filled in when the first undefined byte reaches
  /// it.
  void put_defined(Buffer& db, std::int64_t off, const std::uint8_t* src, std::int64_t len) {
    if (!db.defined.empty()) {
      if (src == nullptr) {
        std::memset(&db.defined[off], 1, len);
      } else {
        std::memmove(&db.defined[off], src, len);
      }
      return;
    }
    if (src == nullptr || std::memchr(src, 0, len) == nullptr) {
      return;
    }
    db.defined.assign(db.bytes.size(), 1);
    std::memmove(&db.defined[off], src, len);
  }

  /// The definedness of byte `off` of `b` onwards (nullptr: all defined).
  static const std::uint8_t* defined_at(const Buffer& b, std::int64_t off) {
    return b.defined.empty() ? nullptr : &b.defined[off];
  }

  /// Moves the first `n` bytes (and their definedness) of `src` runs of `sb` into `dst` runs
  /// of `db`, in order; the rest of `dst` becomes zero and defined.
  void move_bytes(Buffer& db, const Runs& dst, const Buffer& sb, const Runs& src, std::int64_t n) {
    if (dst.more.empty() && src.more.empty() && n == dst.first.len && n == src.first.len) {
      copy_bytes(db.bytes.data() + dst.first.off, sb.bytes.data() + src.first.off, n);
      put_defined(db, dst.first.off, defined_at(sb, src.first.off), n);
      return;
    }
    std::size_t si = 0;     // src run: 0 = first, i = more[i - 1]
    std::int64_t sdone = 0; // bytes of it used
    auto src_run = [&]() -> const Run& { return si == 0 ? src.first : src.more[si - 1]; };
    dst.each([&](Run r) {
      std::int64_t at = 0;
      while (at < r.len && n > 0) {
        while (sdone == src_run().len) {
          ++si;
          sdone = 0;
        }
        const Run& s = src_run();
        const std::int64_t k = std::min({r.len - at, s.len - sdone, n});
        std::memmove(&db.bytes[r.off + at], &sb.bytes[s.off + sdone], k);
        put_defined(db, r.off + at, defined_at(sb, s.off + sdone), k);
        at += k;
        sdone += k;
        n -= k;
      }
      if (at < r.len) {
        std::memset(&db.bytes[r.off + at], 0, r.len - at);
        put_defined(db, r.off + at, nullptr, r.len - at);
      }
    });
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
    std::size_t kept = 0;
    for (std::size_t i = 0; i < ts.queue.size(); ++i) {
      Chunk& c = ts.queue[i];
      if (!which(c)) {
        if (kept != i) {
          ts.queue[kept] = std::move(c);
        }
        ++kept;
        continue;
      }
      if (landed && c.dst->shared) {
        ref::WaitSlack::performed(ts.live, c.group);
      }
      move_bytes(*c.dst, c.dst_runs, *c.src, c.src_runs, c.read_bytes);
      c.dst_runs.each([&](Run r) {
        if (!c.dst->shared) {
          store_global(c.op, bid, tid, *c.dst, r, 0);
          return;
        }
        ref::SharedBytes& h = c.dst->hz;
        each_granule(*c.dst, r, [&](std::size_t g, std::int64_t) {
          store_granule(cta, tid, h, g);
          if (--h.pending[g] == 0) {
            h.skipped_by_wait[g] = ref::none;
          }
          if (landed) {
            h.land_tid[g] = static_cast<std::int32_t>(tid);
            h.land_seq[g] = ts.waits;
            h.land_group[g] = static_cast<std::int32_t>(c.group);
          }
          // Tracked by a copy_arrive: readable after a wait for the phase it arrives in.
          for (std::size_t d : c.deferred) {
            const Deferred& def = cta.deferred[d];
            if (via_barrier == def.barrier && !def.fired) {
              h.guard_barrier[g] = static_cast<std::int32_t>(def.barrier);
              h.guard_phase[g] = cta.barriers[def.barrier].phase;
            }
          }
        });
      });
      for (std::size_t d : c.deferred)
        if (--cta.deferred[d].remaining == 0)
          fire(cta, d);
    }
    ts.queue.resize(kept);
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
    Runs o;
    if (!locate(op, v, b, env(cta_, tid), zeros, std::nullopt, o) || o.first.len == 0)
      return std::nullopt;
    auto [it, fresh] =
        cta_state_.barrier_ids.try_emplace({s.index, o.first.off}, cta_state_.barriers.size());
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
      report_no_value(op, x, what, e);
    }
    return v;
  }

  void report_no_value(std::size_t op, const tile::Located<tile::ExprPtr>& x, const char* what,
                       const tile::ExprEnv& e) {
    problems_.add(op, DiagId::check_expr_not_evaluable, std::string(what) + " does not evaluate",
                  [&] { return where(e.bid, e.tid) + ": '" + x.text + "'"; });
  }

  /// An apply's pred, ignore_src and src_size, in that order.
  static std::array<const std::optional<tile::Located<tile::ExprPtr>>*, 3>
  operands(const tile::ApplyOp& a) {
    return {&a.pred, &a.ignore_src, &a.src_size};
  }

  /// What each operand's value depends on (a default where there is no operand).
  static std::array<NaiveDependence, 3> operand_dependence(const tile::ApplyOp& a) {
    std::array<NaiveDependence, 3> deps;
    const auto xs = operands(a);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (*xs[i] && (*xs[i])->value) {
        deps[i] = naive_dependence(*(*xs[i])->value);
      }
    }
    return deps;
  }

  /// The operands' values that are the same for many chunks, evaluated once for them:
  /// `per_thread` false: those that use neither the thread nor a repeat axis (for the whole
  /// op), true: those that use no repeat axis (for one thread). nullopt: evaluated per chunk
  /// (also where it does not evaluate: the chunks report it).
  /// `deps`: what each operand depends on (operand_dependence).
  static void known_operands(const tile::ApplyOp& a, const std::array<NaiveDependence, 3>& deps,
                             const tile::ExprEnv& e, bool per_thread,
                             std::array<std::optional<std::int64_t>, 3>& known) {
    const auto xs = operands(a);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const auto& x = *xs[i];
      if (!x || !x->value) {
        continue;
      }
      const NaiveDependence& d = deps[i];
      if (!d.axis && d.thread == per_thread) {
        known[i] = naive_evaluate(*x->value, e);
      }
    }
  }

  /// What one chunk reads, nothing reported: `copy` (`bytes`: chunk_bytes, less by src_size
  /// or ignore_src), `none` (pred false), `no_value` (operands(a)[`operand`] does not
  /// evaluate) or `range` (src_size `bytes` outside 0..chunk_bytes). `known`: the operands'
  /// values already evaluated for this chunk (known_operands).
  struct ChunkRead {
    enum class What : std::uint8_t { copy, none, no_value, range };
    What what = What::copy;
    std::int64_t bytes = 0;
    std::size_t operand = 0;
  };
  static ChunkRead chunk_read(const tile::ApplyOp& a, const tile::ExprEnv& e,
                              const std::array<std::optional<std::int64_t>, 3>& known) {
    using W = ChunkRead::What;
    const auto xs = operands(a);
    auto value = [&](std::size_t i) -> std::optional<std::int64_t> {
      if (known[i]) {
        return known[i];
      }
      const auto& x = *xs[i];
      return x->value ? naive_evaluate(*x->value, e) : std::nullopt;
    };
    const std::int64_t chunk = a.chunk_bytes.value;
    if (a.pred) {
      const auto p = value(0);
      if (!p) {
        return {W::no_value, 0, 0};
      }
      if (*p == 0) {
        return {W::none};
      }
    }
    std::int64_t read_bytes = chunk;
    if (a.ignore_src) {
      const auto v = value(1);
      if (!v) {
        return {W::no_value, 0, 1};
      }
      if (*v != 0) {
        read_bytes = 0;
      }
    }
    if (a.src_size) {
      const auto v = value(2);
      if (!v) {
        return {W::no_value, 0, 2};
      }
      if (*v < 0 || *v > chunk) {
        return {W::range, *v, 2};
      }
      read_bytes = std::min(read_bytes, *v);
    }
    return {W::copy, read_bytes};
  }

  /// True when an operand of `a` is left to evaluate per chunk: not in `known`.
  static bool per_chunk(const tile::ApplyOp& a,
                        const std::array<std::optional<std::int64_t>, 3>& known) {
    const auto xs = operands(a);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (*xs[i] && !known[i]) {
        return true;
      }
    }
    return false;
  }

  /// What every chunk of a thread reads where no operand is left per chunk (`copy` of
  /// chunk_bytes without operands); nullopt where one is.
  static std::optional<ChunkRead>
  thread_read(const tile::ApplyOp& a, const tile::ExprEnv& e,
              const std::array<std::optional<std::int64_t>, 3>& known) {
    if (per_chunk(a, known)) {
      return std::nullopt;
    }
    return chunk_read(a, e, known);
  }

  /// chunk_read, with its problems reported: nullopt when nothing is copied.
  std::optional<std::int64_t>
  chunk_read_bytes(std::size_t op, const tile::ApplyOp& a, const tile::ExprEnv& e,
                   const std::array<std::optional<std::int64_t>, 3>& known) {
    static const char* const names[] = {"pred", "ignore_src", "src_size"};
    const ChunkRead r = chunk_read(a, e, known);
    switch (r.what) {
    case ChunkRead::What::copy:
      return r.bytes;
    case ChunkRead::What::none:
      break;
    case ChunkRead::What::no_value:
      report_no_value(op, **operands(a)[r.operand], names[r.operand], e);
      break;
    case ChunkRead::What::range:
      problems_.add(op, DiagId::check_src_size_range,
                    "src_size outside 0..chunk_bytes (nothing copied)", [&] {
                      return where(e.bid, e.tid) + ": src_size " + std::to_string(r.bytes) +
                             ", chunk_bytes " + std::to_string(a.chunk_bytes.value);
                    });
      break;
    }
    return std::nullopt;
  }

  /// Why an apply's dst and src views (plans dp and sp) do not fit together; empty when they do.
  static std::string misfit(const tile::ApplyOp& a, const NaivePlan& dp, const NaivePlan& sp) {
    const auto& ds = dp.shape();
    const auto& ss = sp.shape();
    const std::int64_t chunk = a.chunk_bytes.value;
    const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0; // (warp, lane) axes
    if (ds.size() != ss.size()) {
      return "dst has rank " + std::to_string(ds.size()) + ", src rank " +
             std::to_string(ss.size());
    }
    if (ds.size() < groups + 1) {
      return "expected at least " + std::to_string(groups + 1) + " axes, got " +
             std::to_string(ds.size());
    }
    if (chunk <= 0 || ds.back() * dp.element_bytes() != chunk ||
        ss.back() * sp.element_bytes() != chunk) {
      return "the last axis must hold chunk_bytes = " + std::to_string(chunk) +
             " bytes on both sides; dst holds " + std::to_string(ds.back() * dp.element_bytes()) +
             ", src " + std::to_string(ss.back() * sp.element_bytes());
    }
    for (std::size_t i = 0; i + 1 < ds.size(); ++i) {
      if (ds[i] != ss[i]) {
        return "axis " + std::to_string(i) + " has size " + std::to_string(ds[i]) + " in dst, " +
               std::to_string(ss[i]) + " in src";
      }
    }
    return {};
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
    if (const std::string why = misfit(a, dp, sp); !why.empty()) {
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
    const bool has_operands = a.pred || a.ignore_src || a.src_size; // evaluated per chunk
    const std::int64_t bid = cta_;
    Cta& cta = cta_state_;
    Buffer& db = buffer(dslot, cta);
    Buffer& sb = buffer(sslot, cta);
    tile::ExprEnv e = env(bid, 0);
    tile::ExprEnv chunk_env = e; // e with the chunk's repeat axes bound
    std::vector<std::int64_t> coords(repeat_shape.size());
    std::vector<std::int64_t> full; // a chunk's coordinates, its last axis's included
    const OpForm dview = op_form(a.dst, e);
    const OpForm sview = op_form(a.src, e);
    std::array<std::optional<std::int64_t>, 3> op_known;
    const std::array<NaiveDependence, 3> deps = operand_dependence(a);
    known_operands(a, deps, e, false, op_known);
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      e.tid = tid;
      chunk_env.tid = tid;
      std::array<std::optional<std::int64_t>, 3> known = op_known;
      known_operands(a, deps, e, true, known);
      if (groups == 2) {
        coords[0] = tid / 32;
        coords[1] = tid % 32;
        if (coords[0] >= ds[0] || coords[1] >= ds[1]) {
          problems_.add(op, DiagId::check_thread_outside_group,
                        "thread outside the (warp, lane) group axes (no copy)", [&] {
                          return where(bid, tid) + " is (warp " + std::to_string(coords[0]) +
                                 ", lane " + std::to_string(coords[1]) + "); the group axes are (" +
                                 std::to_string(ds[0]) + ", " + std::to_string(ds[1]) + ")";
                        });
          continue;
        }
      }
      ThreadState& ts = cta.threads[tid];
      const std::optional<Fast> dform = form(dview, e);
      const std::optional<Fast> sform = form(sview, e);
      const std::optional<ChunkRead> same = thread_read(a, e, known);
      for_each_coord(repeat_shape, groups, coords, [&](const std::vector<std::int64_t>& rep) {
        std::optional<std::int64_t> read_bytes = chunk;
        if (same && same->what == ChunkRead::What::none) {
          return;
        }
        if (same && same->what == ChunkRead::What::copy) {
          read_bytes = same->bytes;
        } else if (has_operands) {
          // The operands for this chunk: its repeat axes' names bound to its coordinates.
          for (std::size_t i = groups; i < rep.size() && i < axis_names.size(); ++i) {
            if (!axis_names[i].empty()) {
              chunk_env.axes[axis_names[i]] = rep[i];
            }
          }
          read_bytes = chunk_read_bytes(op, a, chunk_env, known);
          if (!read_bytes) {
            return;
          }
        }
        Chunk c(op, ts.open_group, &db, &sb, *read_bytes);
        bool inside = true;
        auto side = [&](const tile::Located<tile::View>& v, const Buffer& b, std::int64_t n,
                        Runs& runs, const std::optional<Fast>& fast) {
          // The chunk's row: its coordinates without the last axis are those of its first
          // element (the last one is 0).
          if (const auto r = this->row(fast, b, rep, n)) {
            runs.first = *r;
            return;
          }
          full.assign(rep.begin(), rep.end());
          full.push_back(0);
          for (std::int64_t x = 0; x < n && inside; ++x) {
            full.back() = x;
            inside = locate(op, v, b, e, full, fast, runs);
          }
        };
        side(a.dst, db, ds.back(), c.dst_runs, dform);
        side(a.src, sb, ss.back(), c.src_runs, sform); // checked even when nothing is read
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

  /// The issue of a copy into shared bytes: it may land any time before its wait, so it
  /// counts as the write for the barrier-phase check, and it must not meet another pending
  /// copy of the same bytes.
  void issue(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& db,
             const Chunk& c) {
    ref::SharedBytes& h = db.hz;
    c.dst_runs.each([&](Run r) {
      trace(ref::CtaTrace::Kind::issue, db, tid, r);
      each_granule(db, r, [&](std::size_t g, std::int64_t o) {
        if (h.pending[g] > 0 && !missing_commit(db, g)) {
          problems_.add(
              op, DiagId::check_pending_overlap, "two pending copies write the same shared bytes",
              [&] {
                return where(bid, tid) + " issues a copy into " + byte_text(db, o) + ", which op " +
                       std::to_string(h.pending_op[g] + 1) + "'s copy by thread " +
                       std::to_string(h.pending_tid[g]) + " will still write (not yet waited)";
              },
              Severity::error, db.granule());
        }
        check_refill(op, cta, bid, tid, db, g, o, true);
        used_again(cta, h, g);
        ++h.pending[g];
        h.pending_tid[g] = static_cast<std::int32_t>(tid);
        h.pending_op[g] = op32(op);
        h.pending_group[g] = static_cast<std::int32_t>(c.group);
      });
    });
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
    if (!enter_loop(op, f)) {
      problems_.add(op, DiagId::check_loop_bounds, "loop bounds without a value or a step below 1",
                    [&] { return where(cta_, 0) + " at loop '" + f.var.value + "'"; });
    }
  }

  /// The `for` at `op`: its first iteration, or the op after its `end` when it has none. False
  /// (the loop skipped) when start, stop or step has no value or the step is below 1.
  bool enter_loop(std::size_t op, const tile::ForOp& f) {
    // start, stop and step are the same for every thread of the CTA: thread 0's values.
    const tile::ExprEnv e = env(cta_, 0);
    auto start = naive_evaluate(*f.start.value, e);
    auto stop = naive_evaluate(*f.stop.value, e);
    auto step = naive_evaluate(*f.step.value, e);
    if (!start || !stop || !step || *step < 1) {
      next_op_ = f.end + 1;
      return false;
    }
    if (*start >= *stop) {
      next_op_ = f.end + 1;
      return true;
    }
    loop_values_[f.var.value] = *start;
    active_.push_back({op, f.var.value, *stop, *step, groups_committed()});
    next_op_ = op + 1;
    return true;
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
    next_iteration(op, e);
  }

  /// The `end` at `op`: the loop's next iteration, or the op after the end.
  void next_iteration(std::size_t op, const tile::EndOp& e) {
    ActiveLoop& l = active_.back();
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
    const std::int64_t bid = cta_;
    Cta& cta = cta_state_;
    Buffer& b = buffer(s, cta);
    const auto& shape = p.shape();
    const std::int64_t n = shape.empty() ? 1 : shape.back();
    tile::ExprEnv e = env(bid, 0);
    const OpForm view = op_form(f.dst, e);
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      e.tid = tid;
      std::int64_t element = 0;
      const std::optional<Fast> fast = form(view, e);
      // Byte k of the thread's view (k counts from `element`'s first byte) gets pattern[k % size].
      auto store = [&](Run r, std::int64_t k) {
        put_pattern(b, r, k, f.pattern);
        put_defined(b, r.off, nullptr, r.len);
        write_run(op, cta, bid, tid, b, r, 0);
      };
      // A row (the last axis) at a time where it is contiguous, else element by element.
      for_each_row(shape, [&](const std::vector<std::int64_t>& c) {
        if (const auto r = row(fast, b, c, n)) {
          store(*r, element * eb);
          element += n;
          return;
        }
        std::vector<std::int64_t> x = c;
        for (std::int64_t i = 0; i < n; ++i, ++element) {
          if (!shape.empty()) {
            x.back() = i;
          }
          Runs runs;
          if (locate(op, f.dst, b, e, x, fast, runs)) {
            std::int64_t k = element * eb;
            runs.each([&](Run r) {
              store(r, k);
              k += r.len;
            });
          }
        }
      });
    }
  }

  /// Byte i of run `r` of `b` becomes pattern[(k + i) % pattern.size()].
  static void put_pattern(Buffer& b, Run r, std::int64_t k,
                          const std::vector<std::uint8_t>& pattern) {
    for (std::int64_t i = 0; i < r.len; ++i) {
      b.bytes[static_cast<std::size_t>(r.off + i)] =
          pattern[static_cast<std::size_t>(k + i) % pattern.size()];
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
    const std::int64_t bid = cta_;
    Cta& cta = cta_state_;
    Buffer& db = buffer(ds, cta);
    Buffer& sb = buffer(ss, cta);
    const auto& shape = dp.shape();
    const std::int64_t n = shape.empty() ? 1 : shape.back();
    const std::int64_t eb = dp.element_bytes();
    // A row at a time only where one side is global (no problem comes from both the reads
    // and the writes; Problems::begin_batch) and the sides are different tensors.
    const bool batch = &db != &sb && (!db.shared || !sb.shared);
    tile::ExprEnv e = env(bid, 0);
    const OpForm sview = op_form(c.src, e);
    const OpForm dview = op_form(c.dst, e);
    std::vector<std::uint8_t> value;
    std::vector<std::uint8_t> defined;
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      e.tid = tid;
      const std::optional<Fast> sform = form(sview, e);
      const std::optional<Fast> dform = form(dview, e);
      auto element = [&](const std::vector<std::int64_t>& x) {
        Runs so;
        Runs dO;
        const bool s_in = locate(op, c.src, sb, e, x, sform, so);
        const bool d_in = locate(op, c.dst, db, e, x, dform, dO);
        if (!s_in || !d_in) {
          return;
        }
        // ld, then st: the whole element is read before it is written.
        value.clear();
        defined.clear();
        so.each([&](Run r) {
          const std::size_t at = value.size();
          value.insert(value.end(), &sb.bytes[r.off], &sb.bytes[r.off] + r.len);
          if (sb.defined.empty()) {
            defined.insert(defined.end(), r.len, 1);
          } else {
            defined.insert(defined.end(), &sb.defined[r.off], &sb.defined[r.off] + r.len);
          }
          read_run(op, cta, bid, tid, sb, r, 0, [&](std::int64_t from, std::int64_t len) {
            std::fill_n(defined.begin() + static_cast<std::ptrdiff_t>(at + from), len, 1);
          });
        });
        std::size_t at = 0;
        dO.each([&](Run r) {
          std::memcpy(&db.bytes[r.off], &value[at], r.len);
          put_defined(db, r.off, &defined[at], r.len);
          at += r.len;
          write_run(op, cta, bid, tid, db, r, 0);
        });
      };
      for_each_row(shape, [&](const std::vector<std::int64_t>& x) {
        const auto sr = batch ? row(sform, sb, x, n) : std::nullopt;
        const auto dr = sr ? row(dform, db, x, n) : std::nullopt;
        if (dr) {
          const std::size_t mark = problems_.begin_batch();
          std::vector<Run> moot;
          read_run(op, cta, bid, tid, sb, *sr, eb, [&](std::int64_t from, std::int64_t len) {
            moot.push_back({from, len});
          });
          std::memcpy(&db.bytes[dr->off], &sb.bytes[sr->off], dr->len);
          put_defined(db, dr->off, defined_at(sb, sr->off), dr->len);
          for (const Run& m : moot) {
            put_defined(db, dr->off + m.off, nullptr, m.len);
          }
          write_run(op, cta, bid, tid, db, *dr, eb);
          problems_.end_batch(mark);
          return;
        }
        std::vector<std::int64_t> y = x;
        for (std::int64_t i = 0; i < n; ++i) {
          if (!shape.empty()) {
            y.back() = i;
          }
          element(y);
        }
      });
    }
  }

  // ------------------------------------------------------------------ replay (ref::CtaTrace)

  /// True when the launch's CTAs may be replayed: the fast path (the naive one stays the
  /// oracle), no mbarrier ops, every apply copies a global tensor into a shared one, and no
  /// global tensor both read and written. A replayed copy then lands as it is issued: in a CTA
  /// whose checks find nothing, no access meets its bytes before its wait and its source does
  /// not change, so landing at the wait would give the same bytes.
  bool replayable() {
    if (!in_.fast || !in_.replay || ctas_may_meet()) {
      return false;
    }
    auto space = [](const tile::Located<tile::View>& v) {
      return v.value.tensor == nullptr ? std::optional<tile::Space>() : v.value.tensor->space;
    };
    return std::all_of(k_.ops.begin(), k_.ops.end(), [&](const tile::Op& op) {
      if (const auto* a = std::get_if<tile::ApplyOp>(&op.body)) {
        return space(a->dst) == tile::Space::shared && space(a->src) == tile::Space::global;
      }
      return !std::holds_alternative<tile::MbarrierInitOp>(op.body) &&
             !std::holds_alternative<tile::CopyArriveOp>(op.body) &&
             !std::holds_alternative<tile::MbarrierArriveOp>(op.body) &&
             !std::holds_alternative<tile::MbarrierWaitOp>(op.body);
    });
  }

  /// Replays CTA cta_: its ops move its bytes without the ordering checks while its trace is
  /// compared with the recorded one. False where it leaves that trace or meets what the replay
  /// does not do (what would be a finding, a view without an affine form, rows that are not
  /// contiguous): the caller then runs the CTA with every check, which writes again every
  /// global byte the replay wrote (the same ops, views and bounds decide which).
  bool replay_cta() {
    trace_.replay();
    for (std::size_t i = 0; i < k_.ops.size();) {
      const bool ok =
          trace_.match_op(i) &&
          std::visit([&](const auto& body) { return replay_op(i, body); }, k_.ops[i].body);
      if (!ok) {
        active_.clear();
        loop_values_.clear();
        return false;
      }
      i = next_op_;
    }
    return trace_.matched();
  }

  /// The offsets of op's chunks or rows relative to a thread's first (Points), over the axes
  /// from .. to - 1 of `shape` under the strides of the views' forms: computed at the op's
  /// first replay (a view's strides are its skeleton's, the same in every CTA and iteration).
  const Points& op_points(std::size_t op, const std::vector<std::int64_t>& shape, std::size_t from,
                          std::size_t to, const AffineSkeleton& d, const AffineSkeleton& s) {
    if (points_.size() != k_.ops.size()) {
      points_.resize(k_.ops.size());
    }
    if (!points_[op]) {
      points_[op] = std::make_unique<Points>(shape, from, to, d.stride, s.stride);
    }
    return *points_[op];
  }

  /// True when an operand of `a` (what each depends on: `deps`) uses the thread.
  static bool uses_thread(const tile::ApplyOp& a, const std::array<NaiveDependence, 3>& deps) {
    const auto xs = operands(a);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (*xs[i] && deps[i].thread) {
        return true;
      }
    }
    return false;
  }

  /// The replay of an apply (`op`, dst shape `ds`) whose threads differ only in their bases,
  /// each a fixed part plus the op's (OpForm::thread_part), with no group axes, contiguous
  /// chunks of `chunk` bytes and `read` bytes read by each: one addition per thread.
  bool replay_alike(std::size_t op, const std::vector<std::int64_t>& ds, const OpForm& dview,
                    const OpForm& sview, Buffer& db, const Buffer& sb, std::int64_t chunk,
                    std::int64_t read) {
    const Points& p = op_points(op, ds, 0, ds.size() - 1, *dview.skeleton, *sview.skeleton);
    const std::int64_t* const dpart = dview.thread_part->data();
    const std::int64_t* const spart = sview.thread_part->data();
    const std::int64_t dsize = std::ssize(db.bytes);
    const std::int64_t ssize = std::ssize(sb.bytes);
    const auto dindex = static_cast<std::uint32_t>(db.index);
    firsts_.clear();
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      if (dpart[tid] == no_part || spart[tid] == no_part) {
        return false;
      }
      const std::int64_t d0 = *dview.shared + dpart[tid];
      const std::int64_t s0 = *sview.shared + spart[tid];
      if (!p.inside(d0, dsize, s0, ssize, chunk) ||
          !trace_.match_points(ref::CtaTrace::Kind::issue, dindex, tid, d0, p.d.data(), p.d.size(),
                               p.d_even, p.d_step, chunk)) {
        return false;
      }
      firsts_.push_back({d0, s0});
    }
    // Chunk by chunk across the threads: neighbouring threads' chunks are neighbours in
    // memory (the processor fetches ahead), where one thread's lie a row apart. The order is
    // free: in a CTA whose checks find nothing no two chunks of an apply write the same shared
    // bytes (they would be two pending copies of them), and the sources do not change.
    std::uint8_t* const dst = db.bytes.data();
    const std::uint8_t* const src = sb.bytes.data();
    for (std::size_t i = 0; i < p.d.size(); ++i) {
      const std::int64_t pd = p.d[i];
      const std::int64_t ps = p.s[i];
      for (const auto& [d0, s0] : firsts_) {
        copy_bytes(dst + d0 + pd, src + s0 + ps, read);
        if (read < chunk) {
          std::memset(dst + d0 + pd + read, 0, static_cast<std::size_t>(chunk - read));
        }
      }
    }
    return true;
  }

  /// Lands a thread's chunks of an apply (Points `p` from its first, at d0 and s0; `read` of
  /// each chunk's bytes come from src, the rest are zero), its events matched first. Locals
  /// only: a byte store may alias any memory, so members would be loaded again per chunk.
  bool land_thread(std::int64_t tid, std::uint32_t dindex, std::int64_t d0, std::int64_t s0,
                   const Points& p, std::uint8_t* dst, const std::uint8_t* src, std::int64_t chunk,
                   std::int64_t read) {
    const std::size_t n = p.d.size();
    if (!trace_.match_points(ref::CtaTrace::Kind::issue, dindex, tid, d0, p.d.data(), n, p.d_even,
                             p.d_step, chunk)) {
      return false;
    }
    const std::int64_t* const pd = p.d.data();
    const std::int64_t* const ps = p.s.data();
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t d = d0 + pd[i];
      copy_bytes(dst + d, src + s0 + ps[i], read);
      if (read < chunk) {
        std::memset(dst + d + read, 0, static_cast<std::size_t>(chunk - read));
      }
    }
    return true;
  }

  /// The view evaluates and names a tensor of the kernel (prepare, without the problem).
  bool usable(const tile::Located<tile::View>& v) { return plan(v.value).ok() && slot(v.value); }

  /// True when the thread's `n` elements along the last axis are contiguous (row()).
  static bool contiguous(const AffineSkeleton& s, std::int64_t n) {
    return n <= 1 || s.stride.back() == s.element_bytes;
  }
  static bool contiguous(const Fast& f, std::int64_t n) { return contiguous(*f.skeleton, n); }

  bool replay_op(std::size_t op, const tile::ApplyOp& a) {
    next_op_ = op + 1;
    if (!usable(a.dst) || !usable(a.src)) {
      return false;
    }
    const NaivePlan& dp = plan(a.dst.value);
    const NaivePlan& sp = plan(a.src.value);
    if (!misfit(a, dp, sp).empty()) {
      return false;
    }
    Buffer& db = buffer(*slot(a.dst.value), cta_state_);
    const Buffer& sb = buffer(*slot(a.src.value), cta_state_);
    const auto& ds = dp.shape();
    const std::size_t rank = ds.size();
    const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0;
    const std::int64_t chunk = a.chunk_bytes.value;
    const bool none = any_empty(ds, groups, rank - 1);
    std::optional<std::vector<std::string>> axis_names; // where an operand uses one
    tile::ExprEnv e = env(cta_, 0);
    std::optional<tile::ExprEnv> chunk_env; // e with a chunk's repeat axes bound, where needed
    const OpForm dview = op_form(a.dst, e);
    const OpForm sview = op_form(a.src, e);
    const std::array<NaiveDependence, 3> deps = operand_dependence(a);
    std::array<std::optional<std::int64_t>, 3> op_known;
    known_operands(a, deps, e, false, op_known);
    std::array<std::optional<std::int64_t>, 3> known;
    std::optional<ChunkRead> same;        // the thread's chunks' reads, where they are all the same
    const Points* points = nullptr;       // the chunks' offsets (op_points)
    std::vector<std::int64_t> x(rank, 0); // a chunk's coordinates, its last axis's 0
    const std::int64_t dsize = std::ssize(db.bytes);
    const std::int64_t ssize = std::ssize(sb.bytes);
    const auto dindex = static_cast<std::uint32_t>(db.index);
    std::int64_t tid = 0;
    // A chunk whose operands are evaluated for it alone (they use its repeat axes).
    auto land = [&](std::int64_t d, std::int64_t s) {
      if (!axis_names) {
        axis_names = naive_axis_names(a.src.value, sp.levels.front().shape.size());
      }
      if (!chunk_env) {
        chunk_env = e;
      }
      chunk_env->tid = tid;
      for (std::size_t i = groups; i + 1 < rank && i < axis_names->size(); ++i) {
        if (!(*axis_names)[i].empty()) {
          chunk_env->axes[(*axis_names)[i]] = x[i];
        }
      }
      const ChunkRead r = chunk_read(a, *chunk_env, known);
      if (r.what == ChunkRead::What::none) {
        return true;
      }
      if (r.what != ChunkRead::What::copy || d < 0 || d + chunk > dsize || s < 0 ||
          s + chunk > ssize || !trace_.match(ref::CtaTrace::Kind::issue, dindex, tid, d, chunk)) {
        return false;
      }
      copy_bytes(db.bytes.data() + d, sb.bytes.data() + s, r.bytes);
      if (r.bytes < chunk) {
        std::memset(db.bytes.data() + d + r.bytes, 0, static_cast<std::size_t>(chunk - r.bytes));
      }
      return true;
    };
    // Without an operand that uses the thread, every thread's chunks read the same.
    const bool thread_operands = uses_thread(a, deps);
    const std::optional<ChunkRead> op_same =
        thread_operands ? std::nullopt : thread_read(a, e, op_known);
    known = op_known;
    if (groups == 0 && !none && op_same && op_same->what == ChunkRead::What::copy &&
        dview.thread_part != nullptr && sview.thread_part != nullptr && dview.shared &&
        sview.shared && contiguous(*dview.skeleton, ds.back()) &&
        contiguous(*sview.skeleton, ds.back())) {
      return replay_alike(op, ds, dview, sview, db, sb, chunk, op_same->bytes);
    }
    for (; tid < k_.block; ++tid) {
      e.tid = tid;
      if (thread_operands) {
        known = op_known;
        known_operands(a, deps, e, true, known);
      }
      if (groups == 2) {
        x[0] = tid / 32;
        x[1] = tid % 32;
        if (x[0] >= ds[0] || x[1] >= ds[1]) {
          return false;
        }
      }
      if (none) {
        continue;
      }
      same = thread_operands ? thread_read(a, e, known) : op_same;
      if (same && same->what == ChunkRead::What::none) {
        continue;
      }
      if (same && same->what != ChunkRead::What::copy) {
        return false;
      }
      const std::optional<Fast> dform = form(dview, e);
      const std::optional<Fast> sform = form(sview, e);
      if (!dform || !sform || !contiguous(*dform, ds.back()) || !contiguous(*sform, ds.back())) {
        return false;
      }
      std::int64_t d0 = dform->base; // the first chunk: only the group axes' coordinates
      std::int64_t s0 = sform->base;
      for (std::size_t g = 0; g < groups; ++g) {
        d0 += x[g] * dform->skeleton->stride[g];
        s0 += x[g] * sform->skeleton->stride[g];
      }
      if (!same) { // operands per chunk
        if (!each_point(ds, groups, rank - 1, x, d0, s0, dform->skeleton->stride,
                        sform->skeleton->stride, land)) {
          return false;
        }
        continue;
      }
      if (!points) {
        points = &op_points(op, ds, groups, rank - 1, *dform->skeleton, *sform->skeleton);
      }
      if (!points->inside(d0, dsize, s0, ssize, chunk)) {
        return false;
      }
      if (!land_thread(tid, dindex, d0, s0, *points, db.bytes.data(), sb.bytes.data(), chunk,
                       same->bytes)) {
        return false;
      }
    }
    return true;
  }

  bool replay_op(std::size_t op, const tile::CopyOp& c) {
    next_op_ = op + 1;
    if (!usable(c.dst) || !usable(c.src)) {
      return false;
    }
    const NaivePlan& dp = plan(c.dst.value);
    const NaivePlan& sp = plan(c.src.value);
    Buffer& db = buffer(*slot(c.dst.value), cta_state_);
    const Buffer& sb = buffer(*slot(c.src.value), cta_state_);
    if (dp.shape() != sp.shape() || dp.element_bytes() != sp.element_bytes() || &db == &sb ||
        (db.shared && sb.shared)) {
      return false; // a finding, or a copy that runs element by element
    }
    const auto& shape = dp.shape();
    const std::size_t rank = shape.size();
    const std::int64_t n = shape.empty() ? 1 : shape.back();
    if (n <= 0 || (rank > 1 && any_empty(shape, 0, rank - 1))) {
      return true; // no elements
    }
    tile::ExprEnv e = env(cta_, 0);
    const OpForm sview = op_form(c.src, e);
    const OpForm dview = op_form(c.dst, e);
    const std::int64_t len = n * dp.element_bytes();
    const std::int64_t dsize = std::ssize(db.bytes);
    const std::int64_t ssize = std::ssize(sb.bytes);
    const auto dindex = static_cast<std::uint32_t>(db.index);
    const auto sindex = static_cast<std::uint32_t>(sb.index);
    const Points* points = nullptr; // the rows' offsets (op_points)
    const bool sshared = sb.shared;
    const bool dshared = db.shared;
    // A replayed row's bytes are defined: the recorded CTA stored no undefined byte into a
    // global tensor (a shared tensor's definedness is not kept).
    std::uint8_t* const defined = dshared || db.defined.empty() ? nullptr : db.defined.data();
    const bool defines = defined != nullptr;
    std::uint8_t* const dst = db.bytes.data();
    const std::uint8_t* const src = sb.bytes.data();
    // Threads that differ only in their bases (fixed thread parts): one addition each.
    const bool alike = dview.thread_part != nullptr && sview.thread_part != nullptr &&
                       dview.shared && sview.shared && contiguous(*dview.skeleton, n) &&
                       contiguous(*sview.skeleton, n);
    if (alike) {
      points = &op_points(op, shape, 0, rank == 0 ? 0 : rank - 1, *dview.skeleton, *sview.skeleton);
    }
    auto move_row = [&](std::int64_t d, std::int64_t s) {
      copy_bytes(dst + d, src + s, len);
      if (defines) {
        std::memset(defined + d, 1, static_cast<std::size_t>(len));
      }
    };
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      std::int64_t d0 = 0; // the thread's first row
      std::int64_t s0 = 0;
      if (alike) {
        const std::int64_t dpart = (*dview.thread_part)[static_cast<std::size_t>(tid)];
        const std::int64_t spart = (*sview.thread_part)[static_cast<std::size_t>(tid)];
        if (dpart == no_part || spart == no_part) {
          return false;
        }
        d0 = *dview.shared + dpart;
        s0 = *sview.shared + spart;
      } else {
        e.tid = tid;
        const std::optional<Fast> sform = form(sview, e);
        const std::optional<Fast> dform = form(dview, e);
        if (!sform || !dform || !contiguous(*sform, n) || !contiguous(*dform, n)) {
          return false;
        }
        if (!points) {
          points = &op_points(op, shape, 0, rank == 0 ? 0 : rank - 1, *dform->skeleton,
                              *sform->skeleton);
        }
        d0 = dform->base;
        s0 = sform->base;
      }
      if (!points->inside(d0, dsize, s0, ssize, len)) {
        return false;
      }
      const std::int64_t* const pd = points->d.data();
      const std::int64_t* const ps = points->s.data();
      // The thread's row events at once: its reads where src is shared, its writes where dst
      // is (not both: replay_op returned above), everything else in locals.
      const std::size_t rows = points->d.size();
      if ((sshared &&
           !trace_.match_points(ref::CtaTrace::Kind::read, sindex, tid, s0, points->s.data(), rows,
                                points->s_even, points->s_step, len)) ||
          (dshared &&
           !trace_.match_points(ref::CtaTrace::Kind::write, dindex, tid, d0, points->d.data(), rows,
                                points->d_even, points->d_step, len))) {
        return false;
      }
      for (std::size_t i = 0; i < rows; ++i) {
        move_row(d0 + pd[i], s0 + ps[i]);
      }
    }
    return true;
  }

  bool replay_op(std::size_t op, const tile::FillOp& f) {
    next_op_ = op + 1;
    if (!usable(f.dst) || f.pattern.empty()) {
      return false;
    }
    const NaivePlan& p = plan(f.dst.value);
    Buffer& b = buffer(*slot(f.dst.value), cta_state_);
    const auto& shape = p.shape();
    const std::size_t rank = shape.size();
    const std::int64_t n = shape.empty() ? 1 : shape.back();
    if (n <= 0 || (rank > 1 && any_empty(shape, 0, rank - 1))) {
      return true;
    }
    tile::ExprEnv e = env(cta_, 0);
    const OpForm view = op_form(f.dst, e);
    std::vector<std::int64_t> x(rank, 0);
    const std::int64_t len = n * p.element_bytes();
    const std::int64_t size = std::ssize(b.bytes);
    const auto index = static_cast<std::uint32_t>(b.index);
    std::int64_t tid = 0;
    std::int64_t k = 0; // the thread's byte the row starts at
    auto store = [&](std::int64_t d, std::int64_t) {
      if (d < 0 || d + len > size ||
          (b.shared && !trace_.match(ref::CtaTrace::Kind::write, index, tid, d, len))) {
        return false;
      }
      put_pattern(b, {d, len}, k, f.pattern);
      defined_again(b, {d, len});
      k += len;
      return true;
    };
    for (; tid < k_.block; ++tid) {
      e.tid = tid;
      k = 0;
      const std::optional<Fast> fast = form(view, e);
      if (!fast || !contiguous(*fast, n) ||
          !each_point(shape, 0, rank == 0 ? 0 : rank - 1, x, fast->offset(x), 0,
                      fast->skeleton->stride, fast->skeleton->stride, store)) {
        return false;
      }
    }
    return true;
  }

  /// A replayed store into run `r` of `b`: its bytes are defined (the recorded CTA stored no
  /// undefined byte into a global tensor; a shared tensor's definedness is not kept).
  static void defined_again(Buffer& b, Run r) {
    if (!b.shared && !b.defined.empty()) {
      std::memset(b.defined.data() + r.off, 1, static_cast<std::size_t>(r.len));
    }
  }

  bool replay_op(std::size_t op, const tile::ForOp& f) { return enter_loop(op, f); }
  bool replay_op(std::size_t op, const tile::EndOp& e) {
    next_iteration(op, e);
    return true;
  }
  bool replay_op(std::size_t op, const tile::CommitGroupOp&) { return skip(op, true); }
  bool replay_op(std::size_t op, const tile::WaitGroupOp& w) { return skip(op, w.n >= 0); }
  bool replay_op(std::size_t op, const tile::WaitAllOp&) { return skip(op, true); }
  bool replay_op(std::size_t op, const tile::CtaSyncOp&) { return skip(op, true); }
  // Never replayed (replayable()).
  bool replay_op(std::size_t op, const tile::MbarrierInitOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::CopyArriveOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::MbarrierArriveOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::MbarrierWaitOp&) { return skip(op, false); }

  /// An op that moves no bytes in a replay (the copies landed as they were issued).
  bool skip(std::size_t op, bool ok) {
    next_op_ = op + 1;
    return ok;
  }

  const ReferenceInput& in_;
  const tile::Kernel& k_;
  std::vector<Buffer> globals_;         ///< the global tensors
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
  std::map<const tile::View*, ViewInfo> views_;
  Problems problems_;
  bool replayable_ = false;                     ///< replayable(), at set_up
  ref::CtaTrace trace_;                         ///< the recorded CTA's, or the one being replayed
  bool recorded_ = false;                       ///< trace_ holds a CTA that found nothing
  std::vector<std::int64_t> recorded_runs_;     ///< per wait_group op: that CTA's runs
  std::int64_t replayed_ = 0;                   ///< CTAs replayed
  std::vector<std::unique_ptr<Points>> points_; ///< per op, op_points
  std::vector<std::pair<std::int64_t, std::int64_t>> firsts_; ///< replay_alike's threads'
  ReferenceInput* take_ = nullptr;                            ///< whose global bytes may be taken
};

} // namespace

namespace {

/// The launch. `take`: where the caller's global bytes may be taken instead of copied
/// (nullptr: none).
ReferenceOutput launch(const ReferenceInput& in, ReferenceInput* take) {
  if (in.kernel == nullptr) {
    ReferenceOutput out;
    out.problems.push_back("kernel: no kernel given");
    out.problem_ops.push_back(ReferenceOutput::kernel_problem);
    out.findings.push_back(
        {DiagId::check_no_kernel, ReferenceOutput::kernel_problem, "no kernel given"});
    return out;
  }
  Evaluator ev(in, take);
  return ev.run();
}

} // namespace

ReferenceOutput evaluate_reference(const ReferenceInput& in) {
  return launch(in, nullptr);
}

ReferenceOutput evaluate_reference(ReferenceInput&& in) {
  return launch(in, &in);
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
