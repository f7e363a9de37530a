#include "emitter/tile/warp_roles.hpp"

#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::tile {

namespace {

constexpr std::int64_t warp_size = 32;
constexpr std::int64_t warpgroup_size = 128;
/// The registers of one SM (sm_90; CUDA Programming Guide, compute capabilities).
constexpr std::int64_t sm_registers = 65536;
/// setmaxnreg's counts (PTX ISA, setmaxnreg): a multiple of 8 in 24..256.
constexpr std::int64_t min_nreg = 24;
constexpr std::int64_t max_nreg = 256;
constexpr std::int64_t nreg_step = 8;

/// The characters a diagnostic underlines in `text`, at least one (contract_text.hpp's
/// text_length of a Located, for the texts this file picks among several fields).
std::uint32_t underline_length(const std::string& text) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(1, text.size()));
}

/// True for a leaf that is the same for a thread wherever it runs: a constant, the thread's
/// index or the block's size.
bool thread_leaf(const Expr& e) {
  switch (e.kind) {
  case ExprKind::constant:
  case ExprKind::tid:
  case ExprKind::warp:
  case ExprKind::lane:
    return true;
  case ExprKind::special:
    return is_per_thread_leaf(e) || e.special == Special::ntid || e.special == Special::ntid_x ||
           e.special == Special::ntid_y || e.special == Special::ntid_z;
  case ExprKind::unary:
  case ExprKind::binary:
  case ExprKind::select:
    return true; // their leaves are asked in turn
  default:
    return false;
  }
}

/// The thread of the block for which `pred` has no value, or -1; `in`: where it holds.
std::int64_t evaluate_per_thread(const Kernel& k, const Expr& pred, std::vector<bool>& in) {
  for (std::int64_t t = 0; t < k.block; ++t) {
    const auto v = evaluate(pred, k.env_for(0, t));
    if (!v)
      return t;
    in[static_cast<std::size_t>(t)] = *v != 0;
  }
  return -1;
}

/// The threads of the block whose pred holds (all without one); nullopt after an error: the
/// pred uses more than the thread's index (contract_role_pred), or has no value for a thread.
std::optional<std::vector<bool>> users(const Kernel& k, const std::optional<Located<ExprPtr>>& pred,
                                       std::string_view what, Diagnostics& out) {
  std::vector<bool> in(static_cast<std::size_t>(k.block), true);
  if (!pred)
    return in;
  if (const Expr* bad = find_node(*pred->value, [](const Expr& e) { return !thread_leaf(e); })) {
    out.add(diagnostic_at(DiagId::contract_role_pred, pred->pos,
                          std::string(what) + "'s pred '" + pred->text + "' uses '" + print(*bad) +
                              "': it may use only the thread's index (tid, warp, lane) and "
                              "constants, so that its threads are the same on every iteration, "
                              "in every CTA and for every parameter value",
                          underline_length(pred->text)));
    return std::nullopt;
  }
  if (const std::int64_t t = evaluate_per_thread(k, *pred->value, in); t >= 0) {
    out.add(diagnostic_at(DiagId::contract_role_pred, pred->pos,
                          std::string(what) + "'s pred '" + pred->text +
                              "' has no value for thread " + std::to_string(t),
                          underline_length(pred->text)));
    return std::nullopt;
  }
  return in;
}

std::int64_t count_users(const std::vector<bool>& in) {
  return std::count(in.begin(), in.end(), true);
}

/// The first group of `size` threads (a warp, a warpgroup) that `in` splits: some of its
/// threads hold and some do not; nullopt when none is split.
std::optional<std::int64_t> split_group(const std::vector<bool>& in, std::int64_t size) {
  for (std::size_t first = 0; first < in.size(); first += static_cast<std::size_t>(size)) {
    const std::size_t end = std::min(in.size(), first + static_cast<std::size_t>(size));
    const auto held = std::count(in.begin() + static_cast<std::ptrdiff_t>(first),
                                 in.begin() + static_cast<std::ptrdiff_t>(end), true);
    if (held != 0 && static_cast<std::size_t>(held) != end - first)
      return static_cast<std::int64_t>(first) / size;
  }
  return std::nullopt;
}

/// "warps 1..4" / "warp 0" / "no thread": which warps `in` holds for (whole warps).
std::string warps_text(const std::vector<bool>& in) {
  std::string s;
  std::int64_t n = 0;
  for (std::size_t t = 0; t < in.size(); t += warp_size)
    if (in[t]) {
      s += (n++ ? ", " : "") + std::to_string(t / warp_size);
    }
  if (n == 0)
    return "no thread";
  return (n == 1 ? "warp " : "warps ") + s;
}

/// A named_barrier whose users are fewer than its count: with the others of its id it must make
/// up one phase (bar.arrive by some warps, bar.sync by the others, as CUTLASS's producer and
/// consumer warpgroups use one barrier).
struct PartialUse {
  const NamedBarrierOp* op;
  std::vector<bool> users;
};

/// The users' diagnostic of a named barrier that `n` threads (`in`) reach, at `at`.
/// `total`: the threads of the phase (n, or with the id's other partial uses, `more`).
Diagnostic users_error(const NamedBarrierOp& b, std::int64_t n, const std::vector<bool>& in,
                       std::string_view more, std::int64_t total) {
  const std::int64_t count = b.count.value;
  const SourcePos& at = b.pred ? b.pred->pos : b.count.pos;
  return diagnostic_at(DiagId::contract_named_barrier_users, at,
                       "named barrier " + std::to_string(b.id.value) + " waits for " +
                           std::to_string(count) + " threads, but its pred holds for " +
                           std::to_string(n) + " (" + warps_text(in) + ")" + std::string(more) +
                           ": " +
                           (total < count ? "it never completes (a deadlock)"
                                          : "it completes before all of them arrive") +
                           "; make count " + std::to_string(total) + " or the pred hold for " +
                           std::to_string(count) + " threads",
                       underline_length(b.pred ? b.pred->text : b.count.text));
}

/// The partial uses of one id: disjoint, and together exactly the count.
void check_partial_uses(const std::vector<PartialUse>& uses, Diagnostics& out) {
  const NamedBarrierOp& first = *uses.front().op;
  std::vector<bool> all(uses.front().users.size(), false);
  std::string lines;
  for (const PartialUse& u : uses) {
    for (std::size_t t = 0; t < all.size(); ++t) {
      if (u.users[t] && all[t]) {
        out.add(diagnostic_at(DiagId::contract_named_barrier_users, u.op->id.pos,
                              "thread " + std::to_string(t) + " arrives on named barrier " +
                                  std::to_string(first.id.value) +
                                  " here and at an earlier named_barrier of fewer than its " +
                                  std::to_string(first.count.value) +
                                  " threads: one phase would count it twice",
                              underline_length(u.op->id.text)));
        return;
      }
      all[t] = all[t] || u.users[t];
    }
    if (&u != &uses.front())
      lines += (lines.empty() ? "" : ", ") + std::to_string(u.op->id.pos.line);
  }
  const std::int64_t n = count_users(all);
  if (n == first.count.value)
    return;
  out.add(users_error(first, count_users(uses.front().users), uses.front().users,
                      lines.empty() ? std::string()
                                    : ", " + std::to_string(n) +
                                          " with the named_barriers of this id at line " + lines,
                      n));
}

void check_named_barrier(const Kernel& k, const NamedBarrierOp& b,
                         std::map<std::int64_t, const NamedBarrierOp*>& by_id,
                         std::map<std::int64_t, std::vector<PartialUse>>& partial,
                         Diagnostics& out) {
  bool ok = true;
  if (b.id.value < 1 || b.id.value > 15) {
    out.add(diagnostic_at(DiagId::contract_named_barrier_id, b.id.pos,
                          "a named_barrier's id is 1..15 (0 is the CTA's barrier, cta_sync's); "
                          "it is " +
                              std::to_string(b.id.value),
                          underline_length(b.id.text)));
    ok = false;
  }
  const std::int64_t count = b.count.value;
  if (count < warp_size || count > k.block || count % warp_size != 0) {
    out.add(diagnostic_at(DiagId::contract_named_barrier_count, b.count.pos,
                          "a named_barrier's count is a multiple of 32 (whole warps) in 32.." +
                              std::to_string(k.block) + " (the block); it is " +
                              std::to_string(count),
                          underline_length(b.count.text)));
    ok = false;
  }
  if (ok) {
    const auto [it, first] = by_id.emplace(b.id.value, &b);
    if (!first && it->second->count.value != count)
      out.add(diagnostic_at(
          DiagId::contract_named_barrier_counts_differ, b.count.pos,
          "named barrier " + std::to_string(b.id.value) + " has count " + std::to_string(count) +
              " here and " + std::to_string(it->second->count.value) + " at line " +
              std::to_string(it->second->count.pos.line) +
              ": its threads would wait for different totals on one barrier (a deadlock)",
          underline_length(b.count.text)));
  }
  const auto in = users(k, b.pred, "named_barrier", out);
  if (!in)
    return;
  const SourcePos& at = b.pred ? b.pred->pos : b.count.pos;
  const std::uint32_t width = underline_length(b.pred ? b.pred->text : b.count.text);
  if (const auto w = split_group(*in, warp_size)) {
    out.add(diagnostic_at(DiagId::contract_named_barrier_warp, at,
                          "the named_barrier's pred holds for part of warp " + std::to_string(*w) +
                              ": bar.sync counts whole warps and every thread of a warp runs "
                              "it or none does",
                          width));
    return;
  }
  const std::int64_t n = count_users(*in);
  if (ok && n > count)
    out.add(users_error(b, n, *in, "", n));
  else if (ok && n < count)
    partial[b.id.value].push_back({&b, *in});
}

/// The registers per thread of each warpgroup, updated by one setmaxnreg at a time.
struct RegisterWalk {
  const Kernel& k;
  Diagnostics& out;
  std::vector<std::int64_t> regs; ///< per warpgroup
  /// After an error the counts are not known: no budget is checked (nor reported twice).
  bool reported_budget = false;

  void step(const Op& op, const SetmaxnregOp& s) {
    const std::int64_t n = s.regs.value;
    if (n < min_nreg || n > max_nreg || n % nreg_step != 0) {
      out.add(diagnostic_at(DiagId::contract_setmaxnreg_regs, s.regs.pos,
                            "setmaxnreg's register count is a multiple of 8 in 24..256; it is " +
                                std::to_string(n),
                            underline_length(s.regs.text)));
      reported_budget = true;
      return;
    }
    if (k.block % warpgroup_size != 0) {
      out.add(diagnostic_at(DiagId::contract_setmaxnreg_warpgroup, op.pos,
                            "setmaxnreg is run by whole warpgroups (.sync.aligned), but the block "
                            "of " +
                                std::to_string(k.block) +
                                " threads is not a multiple of 128: make it whole warpgroups"));
      reported_budget = true;
      return;
    }
    const auto in = users(k, s.pred, "setmaxnreg", out);
    if (!in) {
      reported_budget = true;
      return;
    }
    if (const auto g = split_group(*in, warpgroup_size)) {
      out.add(diagnostic_at(DiagId::contract_setmaxnreg_warpgroup, s.pred->pos,
                            "setmaxnreg's pred holds for part of warpgroup " + std::to_string(*g) +
                                " (threads " + std::to_string(*g * warpgroup_size) + ".." +
                                std::to_string(*g * warpgroup_size + warpgroup_size - 1) +
                                "): .sync.aligned, every thread of the warpgroup runs it",
                            underline_length(s.pred->text)));
      reported_budget = true;
      return;
    }
    if (regs.empty()) {
      const std::int64_t entry = entry_registers(k);
      if (entry == 0 && reported_budget)
        return;
      if (entry == 0) {
        // A pipeline's setmaxnreg has no table of its own: the key that gave its count
        // (producer_regs, consumer_regs) is where the user wrote it.
        const bool written = op.origin.role == OpOrigin::Role::written;
        out.add(diagnostic_at(DiagId::contract_setmaxnreg_budget, written ? op.pos : s.regs.pos,
                              "setmaxnreg needs the kernel's residency ([kernel] ctas_per_sm): "
                              "without it ptxas cannot tell the registers at entry and ignores "
                              "setmaxnreg",
                              written ? 1 : underline_length(s.regs.text)));
        reported_budget = true;
        return;
      }
      regs.assign(static_cast<std::size_t>(k.block / warpgroup_size), entry);
    }
    const bool inc = s.action == RegAction::inc;
    for (std::size_t g = 0; g < regs.size(); ++g) {
      if (!(*in)[g * warpgroup_size])
        continue;
      if (inc ? n < regs[g] : n > regs[g]) {
        out.add(diagnostic_at(DiagId::contract_setmaxnreg_regs, s.regs.pos,
                              std::string("setmaxnreg.") + (inc ? "inc" : "dec") + " to " +
                                  std::to_string(n) + " registers, but warpgroup " +
                                  std::to_string(g) + " has " + std::to_string(regs[g]) +
                                  " there: " + (inc ? "inc" : "dec") + " may only " +
                                  (inc ? "raise" : "lower") + " the count",
                              underline_length(s.regs.text)));
        reported_budget = true;
        return;
      }
      regs[g] = n;
    }
    std::int64_t total = 0;
    for (std::int64_t r : regs)
      total += r * warpgroup_size;
    const std::int64_t pool = entry_registers(k) * k.block;
    if (total > pool && !reported_budget) {
      std::string per;
      for (std::size_t g = 0; g < regs.size(); ++g)
        per += (g ? " + " : "") + std::to_string(regs[g]) + " x 128";
      out.add(diagnostic_at(DiagId::contract_setmaxnreg_budget, s.regs.pos,
                            "after this setmaxnreg the warpgroups hold " + per + " = " +
                                std::to_string(total) + " registers, more than the CTA's " +
                                std::to_string(pool) + " (" + std::to_string(entry_registers(k)) +
                                " per thread at entry x " + std::to_string(k.block) +
                                " threads): an inc waits for registers forever",
                            underline_length(s.regs.text)));
      reported_budget = true;
    }
  }
};

} // namespace

std::optional<std::vector<bool>> role_threads(const Kernel& k, const Expr& pred) {
  if (find_node(pred, [](const Expr& e) { return !thread_leaf(e); }))
    return std::nullopt;
  std::vector<bool> in(static_cast<std::size_t>(k.block), true);
  if (evaluate_per_thread(k, pred, in) >= 0)
    return std::nullopt;
  return in;
}

std::int64_t entry_registers(const Kernel& k) {
  if (!k.residency || k.residency->ctas_per_sm <= 0 || k.block <= 0)
    return 0;
  const std::int64_t per = sm_registers / (k.residency->ctas_per_sm * k.block);
  return std::min(max_nreg, per / nreg_step * nreg_step);
}

void check_warp_roles(const Kernel& k, Diagnostics& out) {
  std::map<std::int64_t, const NamedBarrierOp*> by_id;
  std::map<std::int64_t, std::vector<PartialUse>> partial;
  RegisterWalk walk{k, out, {}};
  for (const Op& op : k.ops) {
    if (const auto* b = std::get_if<NamedBarrierOp>(&op.body))
      check_named_barrier(k, *b, by_id, partial, out);
    else if (const auto* s = std::get_if<SetmaxnregOp>(&op.body))
      walk.step(op, *s);
  }
  for (const auto& [id, uses] : partial)
    check_partial_uses(uses, out);
}

} // namespace ptxgen::tile
