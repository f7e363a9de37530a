// The launch: set-up of the tensors, the CTAs one after the other (replayed where they can
// be), the end of the kernel, the output, and the texts findings use.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <cstring>
#include <set>

namespace ptxgen::driver::evaluation {

ReferenceOutput Evaluator::run() {
  if (!launchable()) {
    return output();
  }
  set_up();
  run_ctas();
  report_grid_race();
  return output();
}

bool Evaluator::ctas_may_meet() {
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

bool Evaluator::launchable() {
  if (k_.grid > 0 && k_.block > 0) {
    return true;
  }
  problems_.add(kernel_level, DiagId::check_empty_launch, "empty launch", [&] {
    return "grid " + std::to_string(k_.grid) + ", block " + std::to_string(k_.block);
  });
  return false;
}

void Evaluator::run_ctas() {
  if (clusters_meet()) {
    run_clusters();
    return;
  }
  for (cta_ = 0; cta_ < k_.grid; ++cta_) {
    grid_races_.begin_cta(cta_, cluster_of(cta_));
    if (recorded_ && replay_cta()) {
      slack_.add_runs(recorded_runs_);
      ++replayed_;
      end_grid_cta();
      continue;
    }
    grid_races_.begin_cta(cta_,
                          cluster_of(cta_)); // what a replay that left the trace recorded goes
    run_cta();
    end_grid_cta();
  }
}

void Evaluator::run_cta() {
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
  cta_state_.loads.clear();
  cta_state_.retired.clear();
  cta_state_.clock = 0;
  cta_state_.ordered.clear();
  cta_state_.named.clear();
  for (Buffer& g : globals_) {
    g.generic_writes.clear();
  }
  for (std::size_t i = 0; i < k_.ops.size();) {
    if (replayable_) {
      trace_.note_op(i);
    }
    ++cta_state_.clock;
    std::visit([&](const auto& body) { run_op(i, body); }, k_.ops[i].body);
    i = next_op_;
  }
  for (std::int64_t t = 0; t < k_.block; ++t) {
    finish_thread(cta_, t);
  }
  finish_bulk();
  recorded_ = replayable_ && problems_.adds() == adds;
  if (recorded_) {
    recorded_runs_ = slack_.all_runs();
    for (std::size_t op = 0; op < runs.size(); ++op) {
      recorded_runs_[op] -= runs[op];
    }
  }
}

ReferenceOutput Evaluator::output() {
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

void Evaluator::finish_thread(std::int64_t b, std::int64_t t) {
  ThreadState& ts = cta_state_.threads[t];
  slack_.close(ts.live, ref::WaitSlack::covers_nothing); // the end performs nothing
  if (ts.queue.empty()) {
    return;
  }
  // At the first copy no wait covered (its line and column), not at the kernel.
  std::optional<std::size_t> unexplained;
  for (const Chunk& c : ts.queue) {
    if (c.skipped_by_wait != kernel_level) {
      report_missing_commit(c.skipped_by_wait, c.op);
    } else if (!unexplained) {
      unexplained = c.op;
    }
  }
  if (unexplained) {
    problems_.add(
        *unexplained, DiagId::check_never_waited, "copies issued but never waited for", [&] {
          return where(b, t) + " ends with " + std::to_string(ts.queue.size()) + " chunks pending";
        });
  }
  perform(cta_state_, t, [](const Chunk&) { return true; });
}

void Evaluator::report_loose_waits() {
  for (std::size_t op = 0; op < k_.ops.size(); ++op) {
    const auto* w = std::get_if<tile::WaitGroupOp>(&k_.ops[op].body);
    if (w == nullptr || !slack_.worked(op) || slack_.best(op) <= w->n) {
      continue;
    }
    problems_.add(
        op, DiagId::check_wait_stricter, "wait stricter than needed",
        [&] {
          // What comes after the wait's runs: the thread's next wait, or the end of the
          // kernel, where the groups a looser wait leaves pending hold no copies (a run
          // that completed copies there needed them: the end completes nothing).
          const bool next = slack_.followed_by_wait(op), end = slack_.followed_by_end(op);
          const std::string until = next && end ? "the thread's next wait or the end of the kernel"
                                    : next      ? "the thread's next wait"
                                                : "the end of the kernel";
          const std::string rest = next && end ? "the next wait completes the rest (the end of "
                                                 "the kernel finds no copies left)"
                                   : next      ? "the next wait completes the rest"
                                               : "what it leaves pending holds no copies";
          std::string s = "wait_group " + std::to_string(slack_.best(op)) + " would do: ";
          if (slack_.idle(op)) {
            return s + "it would complete nothing, and in none of its " +
                   std::to_string(slack_.runs(op)) +
                   " runs (all threads) does a read or write before " + until +
                   " need what it completes, and " + rest + ": the wait can go";
          }
          return s + "in each of its " + std::to_string(slack_.runs(op)) +
                 " runs (all threads), no read or write before " + until +
                 " needs a group newer than that, and " + rest;
        },
        Severity::note);
  }
}

std::string Evaluator::where(std::int64_t bid, std::int64_t tid) const {
  std::string s = "CTA " + std::to_string(bid) + " thread " + std::to_string(tid);
  if (!active_.empty()) {
    s += " (" + iteration_text() + ")";
  }
  return s;
}

std::string Evaluator::iteration_text() const {
  std::string s;
  for (const ActiveLoop& l : active_) {
    if (!s.empty()) {
      s += ", ";
    }
    s += l.var + "=" + std::to_string(loop_values_.at(l.var));
  }
  return s;
}

std::string Evaluator::byte_text(const Buffer& b, std::int64_t off) {
  return "byte " + std::to_string(off) + " of '" + b.name + "' (" +
         ref::element_text(b.shape, b.element_bytes, off) + ")";
}

void Evaluator::finish(ReferenceOutput& out) const {
  out.problems = problems_.lines(k_);
  out.problem_ops = problems_.ops();
  out.findings = problems_.findings();
}

void Evaluator::set_up() {
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
    b.size = static_cast<std::int64_t>(size);
    if (t.space == tile::Space::global) {
      auto it = in_.global.find(t.name);
      if (!in_.values) {
        // No values: `bytes` stays empty.
      } else if (it == in_.global.end()) {
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
  for (std::size_t i = 0; i < k_.params.size(); ++i) {
    const std::uint64_t v = in_.param_values.empty() ? k_.params[i].value : in_.param_values[i];
    params_[k_.params[i].name] = static_cast<std::int64_t>(v);
  }
  mark_async_read();
  mark_written();
  replayable_ = replayable();
}

tile::ExprEnv Evaluator::env(std::int64_t bid, std::int64_t tid) const {
  tile::ExprEnv e;
  e.tid = tid;
  e.bid = bid;
  // A kernel built by hand may set only the totals: then the launch is x only.
  e.block_dim = k_.block_dim.count() == k_.block ? k_.block_dim : tile::Dim3{k_.block, 1, 1};
  e.grid_dim = k_.grid_dim.count() == k_.grid ? k_.grid_dim : tile::Dim3{k_.grid, 1, 1};
  e.cluster_dim = k_.cluster_dim();
  e.loops = loop_values_;
  for (const auto& [n, v] : params_) {
    e.params[n] = v;
  }
  return e;
}

} // namespace ptxgen::driver::evaluation
