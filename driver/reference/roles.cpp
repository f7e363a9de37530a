#include "driver/reference/roles.hpp"

#include "emitter/tile/warp_roles.hpp"

#include <algorithm>
#include <variant>

namespace ptxgen::driver::ref {

namespace {

constexpr std::size_t warp_size = 32;
constexpr std::size_t warps_per_group = 4; ///< a warpgroup: setmaxnreg's and wgmma's unit

/// The op's pred, or nullptr. Every op body with a `pred` member has it here, whatever its
/// kind, so that a new op with a pred has its role without a row of its own.
const tile::Located<tile::ExprPtr>* pred_of(const tile::OpBody& body) {
  return std::visit(
      [](const auto& b) -> const tile::Located<tile::ExprPtr>* {
        if constexpr (requires { b.pred; }) {
          return b.pred ? &*b.pred : nullptr;
        } else {
          return nullptr;
        }
      },
      body);
}

/// An op that fills shared stages for others: a producer's.
bool produces(const tile::OpBody& body) {
  return std::holds_alternative<tile::BulkLoadOp>(body) ||
         std::holds_alternative<tile::TensorLoadOp>(body) ||
         std::holds_alternative<tile::ExpectTxOp>(body) ||
         std::holds_alternative<tile::ApplyOp>(body);
}

/// "1-3", "0, 2, 5-7": the indices where `in` holds.
std::string ranges(const std::vector<bool>& in) {
  std::string s;
  for (std::size_t i = 0; i < in.size();) {
    if (!in[i]) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < in.size() && in[j + 1])
      ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
    i = j + 1;
  }
  return s;
}

/// Every `size`-element group of `in` all in or all out: then the groups that are in;
/// nullopt when one is split.
std::optional<std::vector<bool>> whole(const std::vector<bool>& in, std::size_t size) {
  std::vector<bool> out((in.size() + size - 1) / size, false);
  for (std::size_t g = 0; g < out.size(); ++g) {
    const auto first = in.begin() + static_cast<std::ptrdiff_t>(g * size);
    const auto last =
        in.begin() + static_cast<std::ptrdiff_t>(std::min(in.size(), g * size + size));
    const auto n = std::count(first, last, true);
    if (n != 0 && n != last - first)
      return std::nullopt;
    out[g] = n != 0;
  }
  return out;
}

/// "warps 1-3", "warpgroup 1 (warps 4-7)", "thread 0": the threads of `in`, by the largest
/// unit they are whole in.
std::string threads_text(const std::vector<bool>& in) {
  const auto plural = [](const std::vector<bool>& v, const char* one, const char* many) {
    return std::string(std::count(v.begin(), v.end(), true) == 1 ? one : many) + " " + ranges(v);
  };
  const auto warps = whole(in, warp_size);
  if (!warps)
    return plural(in, "thread", "threads");
  const auto groups = in.size() % (warp_size * warps_per_group) == 0
                          ? whole(*warps, warps_per_group)
                          : std::nullopt;
  const std::string w = plural(*warps, "warp", "warps");
  return groups ? plural(*groups, "warpgroup", "warpgroups") + " (" + w + ")" : w;
}

/// The threads the pred's conjuncts on the thread alone select ("tid == 0" of "tid == 0 &&
/// k + 1 < 6": the producer's guard on the last tiles is no part of who it is); nullopt when
/// no conjunct is on the thread alone.
std::optional<std::vector<bool>> thread_part(const tile::Kernel& k, const tile::Expr& pred) {
  if (pred.kind == tile::ExprKind::binary && pred.op == tile::ExprOp::logical_and) {
    auto a = thread_part(k, *pred.args[0]);
    auto b = thread_part(k, *pred.args[1]);
    if (!a || !b)
      return a ? a : b;
    for (std::size_t t = 0; t < a->size(); ++t)
      (*a)[t] = (*a)[t] && (*b)[t];
    return a;
  }
  return tile::role_threads(k, pred);
}

} // namespace

void Roles::build() const {
  if (built_)
    return;
  built_ = true;
  ops_.assign(k_.ops.size(), OpRole{});
  using Role = tile::OpOrigin::Role;
  const tile::Located<tile::View>* full_wait = nullptr; // the consumers' wait before their ops
  for (std::size_t i = 0; i < k_.ops.size(); ++i) {
    const tile::Op& op = k_.ops[i];
    OpRole& r = ops_[i];
    const auto* wait = std::get_if<tile::MbarrierWaitOp>(&op.body);
    const auto* bulk = std::get_if<tile::BulkLoadOp>(&op.body);
    const auto* tensor = std::get_if<tile::TensorLoadOp>(&op.body);
    const auto* load_barrier = bulk ? &bulk->barrier : tensor ? &tensor->barrier : nullptr;
    switch (op.origin.role) {
    case Role::written:
      if (const auto* p = pred_of(op.body))
        add_pred_role(i, *p);
      break;
    case Role::producer_wait:
      r = {-1, wait ? &wait->barrier : nullptr, "the pipeline's producer's wait for the release"};
      break;
    case Role::producer_expect:
      if (const auto* e = std::get_if<tile::ExpectTxOp>(&op.body))
        r = {-1, &e->barrier, "the pipeline's producer's expect_tx"};
      break;
    case Role::prologue_load:
    case Role::steady_load:
      // A ring's loads complete on its full barrier; a cp.async pipeline's every thread runs.
      if (load_barrier)
        r = {-1, load_barrier,
             op.origin.role == Role::prologue_load ? "the pipeline's producer's fill"
                                                   : "the pipeline's producer's refill"};
      break;
    case Role::consumer_wait:
      full_wait = wait ? &wait->barrier : nullptr;
      r = {-1, full_wait, "the pipeline's consumers' wait for the tile"};
      break;
    case Role::consumer:
      if (full_wait)
        r = {-1, full_wait, "the pipeline's consumer"};
      break;
    case Role::consumer_release: {
      const auto* arrive = std::get_if<tile::MbarrierArriveOp>(&op.body);
      r = {-1, arrive ? &arrive->barrier : full_wait, "the pipeline's consumers' release"};
      break;
    }
    case Role::pipeline_sync:
    case Role::prologue_commit:
    case Role::steady_loop:
    case Role::steady_wait:
    case Role::steady_sync:
    case Role::steady_commit:
    case Role::ring_init:
    case Role::ring_exit:
      break; // no thread of its own: every thread runs it, none touches a stage's bytes
    }
    if (op.origin.role != Role::consumer && op.origin.role != Role::consumer_wait &&
        op.origin.role != Role::consumer_release)
      full_wait = nullptr;
  }
  name_groups();
}

void Roles::add_pred_role(std::size_t op, const tile::Located<tile::ExprPtr>& pred) const {
  if (!pred.value)
    return;
  auto in = thread_part(k_, *pred.value);
  if (!in || std::count(in->begin(), in->end(), true) == 0)
    return; // not a role: no part of the pred is on the thread alone, or no thread runs it
  auto it = std::find_if(groups_.begin(), groups_.end(),
                         [&](const Group& g) { return g.threads == *in; });
  if (it == groups_.end())
    it = groups_.insert(groups_.end(), Group{std::move(*in), {}, false});
  it->producer = it->producer || produces(k_.ops[op].body);
  ops_[op].group = static_cast<std::int32_t>(it - groups_.begin());
  ops_[op].pred = &pred;
}

void Roles::name_groups() const {
  std::vector<bool> producers(static_cast<std::size_t>(std::max<std::int64_t>(k_.block, 0)));
  bool any = false;
  for (const Group& g : groups_)
    for (std::size_t t = 0; g.producer && t < producers.size(); ++t) {
      producers[t] = producers[t] || g.threads[t];
      any = true;
    }
  for (Group& g : groups_) {
    bool shared = false;
    for (std::size_t t = 0; t < producers.size(); ++t)
      shared = shared || (g.threads[t] && producers[t]);
    const std::string name = g.producer ? "the producer" : any && !shared ? "the consumer" : "";
    // One thread is named by its index already: "thread 0 (warp 0, the producer: ...)".
    if (std::count(g.threads.begin(), g.threads.end(), true) == 1)
      g.text = name;
    else
      g.text = (name.empty() ? name : name + " ") + threads_text(g.threads);
  }
}

std::string Roles::of(std::size_t op, std::int64_t tid, std::optional<std::int64_t> stage) const {
  build();
  const OpRole& r = ops_[op];
  if (!r.ring.empty())
    return r.ring + (stage ? " of stage " + std::to_string(*stage) : std::string());
  if (r.group < 0)
    return {};
  const std::string& text = groups_[static_cast<std::size_t>(r.group)].text;
  return "warp " + std::to_string(tid / static_cast<std::int64_t>(warp_size)) +
         (text.empty() ? text : ", " + text) + ": pred '" + r.pred->text + "'";
}

const tile::Located<tile::View>* Roles::stage_barrier(std::size_t op) const {
  build();
  return ops_[op].barrier;
}

} // namespace ptxgen::driver::ref
