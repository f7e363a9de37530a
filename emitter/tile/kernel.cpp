#include "emitter/tile/kernel.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/tile/op_table.hpp"

#include <algorithm>

namespace ptxgen::tile {

const TensorDecl* Kernel::find_tensor(std::string_view n) const {
  for (const auto& t : tensors)
    if (t->tensor.name == n)
      return t.get();
  return nullptr;
}

const ScalarParam* Kernel::find_param(std::string_view n) const {
  for (const auto& p : params)
    if (p.name == n)
      return &p;
  return nullptr;
}

void Kernel::set_launch(Dim3 grid_dims, Dim3 block_dims) {
  grid_dim = grid_dims;
  block_dim = block_dims;
  grid = grid_dims.count();
  block = block_dims.count();
}

ExprEnv Kernel::env_for(std::int64_t bid, std::int64_t tid,
                        std::span<const std::uint64_t> values) const {
  ExprEnv env;
  env.bid = bid;
  env.tid = tid;
  env.grid_dim = grid_dim.or_x(grid);
  env.block_dim = block_dim.or_x(block);
  env.cluster_dim = cluster_dim();
  for (std::size_t i = 0; i < params.size(); ++i)
    env.params[params[i].name] =
        static_cast<std::int64_t>(values.empty() ? params[i].value : values[i]);
  return env;
}

LaunchBounds Kernel::launch_bounds() const {
  LaunchBounds b;
  b.block = block;
  b.grid = grid;
  b.block_dim = block_dim.or_x(block);
  b.grid_dim = grid_dim.or_x(grid);
  b.cluster_dim = cluster_dim();
  for (const auto& p : params) {
    if (p.range)
      b.params[p.name] = *p.range;
    else
      b.params[p.name] = Interval{0, p.is_u64 ? INT64_MAX : std::int64_t{0xFFFFFFFF}};
  }
  return b;
}

const SharedLayout::Entry* SharedLayout::find(std::string_view name) const {
  for (const auto& e : entries)
    if (e.decl->tensor.name == name)
      return &e;
  return nullptr;
}

SharedLayout shared_layout(const Kernel& k) {
  SharedLayout l;
  for (const auto& t : k.tensors) {
    if (t->tensor.space != Space::shared)
      continue;
    const std::uint32_t align = std::max(t->tensor.align, min_shared_align);
    l.align = std::max(l.align, align);
    const std::int64_t start = (l.total + align - 1) / align * align;
    l.total = start + t->tensor.size_bytes();
    l.static_bound += t->tensor.size_bytes() + align - 1;
    l.entries.push_back({t.get(), start, l.total});
  }
  // Not `total`: ptxas lays static arrays out in an order of its own, and found by
  // `ptxgen fuzz` (seeds 37461, 38987), a 44578-byte array, a 32-byte one and a
  // 480-byte one aligned to 4096 take 45536 bytes in declaration order and 49186 in
  // ptxas's ("uses too much shared data (0xc022 bytes, 0xc000 max)").
  l.dynamic = l.static_bound > ptx::max_static_shared_bytes;
  return l;
}

namespace {

/// " (TABLE at line L)", or nothing where the op has no line (built through the C++ API).
std::string table_at(std::string_view table, const SourcePos& pos) {
  if (pos.line == 0)
    return "";
  return " (" + std::string(table) + " at line " + std::to_string(pos.line) + ")";
}

} // namespace

ptx::Target min_target(const Kernel& k) {
  int sm = k.cluster ? 90 : 80; // clusters are sm_90's
  bool arch_specific = false;
  for (const Op& op : k.ops) {
    sm = std::max(sm, op_row(op.body).min_sm);
    arch_specific = arch_specific || op_row(op.body).arch_specific();
  }
  return arch_specific ? ptx::sm_a(sm) : ptx::sm(sm);
}

std::string_view op_kind(const OpBody& body) {
  return op_row(body).spelling;
}

namespace {

/// The label of an op of a pipeline's mbarrier ring (pipeline.hpp).
std::string ring_label(const Op& op) {
  using Role = OpOrigin::Role;
  const std::int64_t step = op.origin.step;
  const std::string when = step >= 0 ? " of prologue stage " + std::to_string(step)
                                     : std::string(" of the steady state");
  const Located<View>* bar = nullptr;
  std::string what;
  if (const auto* w = std::get_if<MbarrierWaitOp>(&op.body)) {
    bar = &w->barrier;
    what = op.origin.role == Role::producer_wait ? "producer's wait for a free stage on "
                                                 : "consumer's wait for its tile on ";
  } else if (const auto* e = std::get_if<ExpectTxOp>(&op.body)) {
    bar = &e->barrier;
    what = "producer's expect_tx on ";
  } else if (const auto* a = std::get_if<MbarrierArriveOp>(&op.body)) {
    bar = &a->barrier;
    what = "consumers' release of their stage on ";
  } else if (std::holds_alternative<ProxyFenceOp>(op.body)) {
    return op.origin.role == Role::consumer_release
               ? "the pipeline's proxy_fence after the consumer's writes to its stage" +
                     table_at("pipeline", op.pos)
               : "the pipeline's proxy_fence after the writes to its stages before it" +
                     table_at("pipeline", op.pos);
  } else if (const auto* i = std::get_if<MbarrierInitOp>(&op.body)) {
    return "the pipeline's mbarrier_init of '" + i->barrier.text + "' (stage " +
           std::to_string(step) + ")" + table_at("pipeline", op.pos);
  } else if (const auto* r = std::get_if<SetmaxnregOp>(&op.body)) {
    return std::string("the pipeline's setmaxnreg.") +
           (r->action == RegAction::dec ? "dec of its producer warps"
                                        : "inc of its consumer warps") +
           table_at("pipeline", op.pos);
  } else if (std::holds_alternative<NamedBarrierOp>(op.body)) {
    return "the pipeline's consumers' named_barrier before their release" +
           table_at("pipeline", op.pos);
  } else if (std::holds_alternative<MbarrierInitFenceOp>(op.body)) {
    return "the pipeline's mbarrier_init_fence after its barriers' init" +
           table_at("pipeline", op.pos);
  } else if (std::holds_alternative<ClusterSyncOp>(op.body)) {
    return op.origin.role == Role::ring_exit
               ? "the pipeline's cluster_sync after its steady state" + table_at("pipeline", op.pos)
               : "the pipeline's cluster_sync after its barriers' init" +
                     table_at("pipeline", op.pos);
  } else {
    return "the pipeline's cta_sync after its barriers' init" + table_at("pipeline", op.pos);
  }
  const bool prologue =
      op.origin.role == Role::producer_wait || op.origin.role == Role::producer_expect;
  return "the pipeline's " + what + "'" + bar->text + "'" + (prologue ? when : std::string()) +
         table_at("pipeline", op.pos);
}

} // namespace

std::string op_label(const Kernel& k, std::size_t index) {
  const Op& op = k.ops[index];
  using Role = OpOrigin::Role;
  const std::string step = std::to_string(op.origin.step);
  switch (op.origin.role) {
  case Role::written:
    break;
  case Role::pipeline_sync:
    return "the " + std::string(op_kind(op.body)) + " before the pipeline" +
           table_at("pipeline", op.pos);
  case Role::prologue_load:
    return "the pipeline's prologue load of stage " + step + table_at("[[op.load]]", op.pos);
  case Role::prologue_commit:
    return "the pipeline's prologue commit_group of stage " + step + table_at("pipeline", op.pos);
  case Role::steady_loop:
    return "the pipeline's steady-state loop" + table_at("pipeline", op.pos);
  case Role::steady_wait:
    return "the pipeline's steady-state wait_group " +
           std::to_string(std::get<WaitGroupOp>(op.body).n) + table_at("pipeline", op.pos);
  case Role::steady_sync:
    return "the pipeline's steady-state cta_sync" + table_at("pipeline", op.pos);
  case Role::steady_load:
    return "the pipeline's steady-state load" + table_at("[[op.load]]", op.pos);
  case Role::steady_commit:
    return "the pipeline's steady-state commit_group" + table_at("pipeline", op.pos);
  case Role::consumer:
    return "the pipeline's consumer " + std::string(op_kind(op.body)) +
           table_at("[[op.body]]", op.pos);
  case Role::ring_init:
  case Role::producer_wait:
  case Role::producer_expect:
  case Role::consumer_wait:
  case Role::consumer_release:
  case Role::ring_exit:
    return ring_label(op);
  }
  if (k.built_in_code && op.pos.line != 0)
    return "the " + std::string(op_kind(op.body)) + " at " + op.pos.file + ":" +
           std::to_string(op.pos.line);
  // The user's number: their ops before it, each pipeline's expansion counting as one.
  std::size_t number = 1;
  for (std::size_t j = 0; j < index; ++j)
    number += k.ops[j].origin.role == Role::written || k.ops[j].origin.opens ? 1 : 0;
  return "op " + std::to_string(number);
}

std::string op_to_add(const Kernel& k, std::string_view kind) {
  if (k.built_in_code)
    return std::string(kind) + "()";
  return "op = \"" + std::string(kind) + "\"";
}

} // namespace ptxgen::tile
