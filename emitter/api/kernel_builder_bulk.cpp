// The kernel builder's sm_90 bulk-copy family: bulk and tensor copies, their groups,
// fences and transaction counts, a pipeline's mbarrier ring and the PTX parameter order
// (which names tensor maps). Every rule is build::Builder's (emitter/builder/bulk_rules.cpp), as
// for a spec file's ops.

#include "emitter/api/builder_operands.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/tile/op_table.hpp"

namespace ptxgen::api {

using operands::at_of;
using operands::located;
using operands::text_of;

void KernelBuilder::abi(const std::vector<std::string>& names, Pos at) {
  std::vector<std::pair<std::string, build::At>> entries;
  for (const std::string& n : names)
    entries.emplace_back(n, at_of(at));
  b_->abi(entries, at_of(at), true);
}

// ---------------------------------------------------------------- operands

bool KernelBuilder::cache_policy_operand(const std::optional<tile::CachePolicy>& in, const Pos& at,
                                         std::optional<tile::Located<tile::CachePolicy>>& out) {
  if (!in)
    return true;
  bool ok = true;
  if (const auto* p = std::get_if<tile::CachePolicyFromParam>(&*in))
    ok = b_->policy_param(p->param, text_of(p->param, at));
  out = tile::Located<tile::CachePolicy>{*in, "cache_policy", at.source_pos()};
  return ok;
}

template <class Op>
bool KernelBuilder::bulk_operands(const BulkOptions& options, const Pos& at, Op& op) {
  bool ok = true;
  if (options.pred) {
    ok = check_expr(*options.pred, at);
    op.pred = located(*options.pred, at);
  }
  if constexpr (requires { op.multicast; }) {
    if (options.multicast) {
      ok = check_expr(*options.multicast, at) && ok;
      op.multicast = located(*options.multicast, at);
    }
  } else if (options.multicast) {
    b_->unknown_key("multicast", at_of(at), tile::op_keys(tile::op_index<Op>),
                    tile::op_rows[tile::op_index<Op>].spelling);
    ok = false;
  }
  if constexpr (requires { op.offsets; }) {
    if (options.offsets) {
      op.offsets.emplace();
      for (const Expr& o : *options.offsets) {
        ok = check_expr(o, at) && ok;
        op.offsets->push_back(located(o, at));
      }
    }
  } else if (options.offsets) {
    b_->unknown_key("offsets", at_of(at), tile::op_keys(tile::op_index<Op>),
                    tile::op_rows[tile::op_index<Op>].spelling);
    ok = false;
  }
  return cache_policy_operand(options.cache_policy, at, op.cache_policy) && ok;
}

bool KernelBuilder::bulk_view(const View& v, tile::Space want, std::string_view role,
                              const Pos& at) {
  return check_view(v, at) && b_->bulk_space(v.tile(), want, role, at_of(at));
}

/// A load's barrier: the one given, or in a ring pipeline's loads the stage's full barrier.
std::optional<tile::Located<tile::View>> KernelBuilder::load_barrier(const View* barrier,
                                                                     const Pos& at) {
  if (capturing_loads_) {
    if (barrier) {
      b_->pipeline_load_barrier(at_of(at));
      return std::nullopt;
    }
    if (ring_full_)
      return *ring_full_;
    // The pipeline reports the missing (or refused) full barrier, or a load kind that does not
    // fit its first; the load stays among the loads so that its kind is checked too.
    return tile::Located<tile::View>{};
  }
  if (!barrier) {
    b_->missing(at_of(at), "a bulk_load or tensor_load outside a pipeline completes on an "
                           "mbarrier: give its barrier, e.g. bar.sub({0})");
    return std::nullopt;
  }
  if (check_view(*barrier, at) && b_->barrier(barrier->tile(), at_of(at)))
    return located(*barrier, at);
  return std::nullopt;
}

/// A tensor op's `tensor` (a whole mapped global tensor, named by its view) and `coords`.
bool KernelBuilder::tensor_operand(const View& tensor, const std::vector<Expr>& coords,
                                   const Pos& at, tile::Located<std::string>& name,
                                   std::vector<tile::Located<tile::ExprPtr>>& out) {
  bool ok = true;
  for (const Expr& c : coords) {
    ok = check_expr(c, at) && ok;
    out.push_back(located(c, at));
  }
  if (!tensor.ok()) {
    b_->report(*tensor.error());
    return false;
  }
  // A view with steps is no tensor's name: the builder reports it as unknown.
  const tile::TensorDecl* d = b_->mapped_tensor(text_of(tensor.text(), at));
  if (!d || !b_->tensor_coords(*d, coords.size(), at_of(at)))
    return false;
  name = {tensor.text(), tensor.text(), at.source_pos()};
  return ok;
}

// ---------------------------------------------------------------- ops

void KernelBuilder::push_bulk_load(const View& dst, const View& src, const View* barrier,
                                   const BulkOptions& options, const Pos& at) {
  note_load("bulk_load");
  tile::BulkLoadOp op;
  bool ok = bulk_view(dst, tile::Space::shared, "dst", at);
  ok = bulk_view(src, tile::Space::global, "src", at) && ok;
  auto bar = load_barrier(barrier, at);
  ok = bulk_operands(options, at, op) && bar && ok;
  if (!ok)
    return;
  op.dst = located(dst, at);
  op.src = located(src, at);
  op.barrier = std::move(*bar);
  push(std::move(op), at);
}

void KernelBuilder::bulk_load(const View& dst, const View& src, const View& barrier,
                              const BulkOptions& options, Pos at) {
  push_bulk_load(dst, src, &barrier, options, at);
}

void KernelBuilder::bulk_load(const View& dst, const View& src, const BulkOptions& options,
                              Pos at) {
  push_bulk_load(dst, src, nullptr, options, at);
}

template <class Op>
bool KernelBuilder::global_from_shared(const View& dst, const View& src, const BulkOptions& options,
                                       const Pos& at, Op& op) {
  bool ok = bulk_view(dst, tile::Space::global, "dst", at);
  ok = bulk_view(src, tile::Space::shared, "src", at) && ok;
  ok = bulk_operands(options, at, op) && ok;
  if (!ok)
    return false;
  op.dst = located(dst, at);
  op.src = located(src, at);
  return true;
}

void KernelBuilder::bulk_store(const View& dst, const View& src, const BulkOptions& options,
                               Pos at) {
  tile::BulkStoreOp op;
  if (global_from_shared(dst, src, options, at, op))
    push(std::move(op), at);
}

void KernelBuilder::bulk_reduce(const View& dst, const View& src, tile::ReduceKind reduce,
                                const BulkOptions& options, Pos at) {
  tile::BulkReduceOp op;
  if (!global_from_shared(dst, src, options, at, op))
    return;
  op.reduce = reduce;
  op.reduce_pos = at.source_pos();
  push(std::move(op), at);
}

void KernelBuilder::bulk_copy_peer(const View& dst, const View& src, const View& barrier,
                                   std::optional<Expr> pred, Pos at) {
  bool ok = bulk_view(dst, tile::Space::shared, "dst", at);
  ok = bulk_view(src, tile::Space::shared, "src", at) && ok;
  ok = check_view(barrier, at) && b_->barrier(barrier.tile(), at_of(at)) && ok;
  if (pred)
    ok = check_expr(*pred, at) && ok;
  if (!ok)
    return;
  tile::BulkCopyPeerOp op{located(dst, at), located(src, at), located(barrier, at), std::nullopt};
  if (pred)
    op.pred = located(*pred, at);
  push(std::move(op), at);
}

void KernelBuilder::bulk_commit(Pos at) {
  push(tile::BulkCommitOp{}, at);
}

void KernelBuilder::bulk_wait(std::int64_t n, bool read, Pos at) {
  if (b_->wait_group(n, at_of(at)))
    push(tile::BulkWaitOp{n, read}, at);
}

void KernelBuilder::proxy_fence(Pos at) {
  push(tile::ProxyFenceOp{}, at);
}

void KernelBuilder::proxy_fence(tile::FenceSpace space, Pos at) {
  push(tile::ProxyFenceOp{space}, at);
}

void KernelBuilder::expect_tx(const View& barrier, const Expr& bytes,
                              const ExpectTxOptions& options, Pos at) {
  bool ok = check_view(barrier, at) && b_->barrier(barrier.tile(), at_of(at));
  ok = check_expr(bytes, at) && ok;
  if (options.pred)
    ok = check_expr(*options.pred, at) && ok;
  if (!ok)
    return;
  tile::ExpectTxOp op{located(barrier, at), located(bytes, at), options.arrive, std::nullopt};
  if (options.pred)
    op.pred = located(*options.pred, at);
  push(std::move(op), at);
}

void KernelBuilder::push_tensor_load(const View& tensor, const std::vector<Expr>& coords,
                                     const View& dst, const View* barrier,
                                     const BulkOptions& options, const Pos& at) {
  note_load("tensor_load");
  tile::TensorLoadOp op;
  bool ok = tensor_operand(tensor, coords, at, op.tensor, op.coords);
  if (ok) {
    const tile::TensorDecl* d = b_->mapped_tensor(text_of(tensor.text(), at));
    const auto count =
        options.offsets ? std::optional(options.offsets->size()) : std::optional<std::size_t>();
    ok = d && b_->im2col_offsets(*d, count, at_of(at));
  }
  ok = bulk_view(dst, tile::Space::shared, "dst", at) && ok;
  auto bar = load_barrier(barrier, at);
  ok = bulk_operands(options, at, op) && bar && ok;
  if (!ok)
    return;
  op.dst = located(dst, at);
  op.barrier = std::move(*bar);
  if (options.map)
    op.map = located(*options.map, at);
  push(std::move(op), at);
}

void KernelBuilder::tensor_load(const View& tensor, const std::vector<Expr>& coords,
                                const View& dst, const View& barrier, const BulkOptions& options,
                                Pos at) {
  push_tensor_load(tensor, coords, dst, &barrier, options, at);
}

void KernelBuilder::tensor_load(const View& tensor, const std::vector<Expr>& coords,
                                const View& dst, const BulkOptions& options, Pos at) {
  push_tensor_load(tensor, coords, dst, nullptr, options, at);
}

void KernelBuilder::tensor_store(const View& tensor, const std::vector<Expr>& coords,
                                 const View& src, const BulkOptions& options, Pos at) {
  tile::TensorStoreOp op;
  bool ok = tensor_operand(tensor, coords, at, op.tensor, op.coords);
  if (ok) {
    const tile::TensorDecl* d = b_->mapped_tensor(text_of(tensor.text(), at));
    ok = d && b_->im2col_offsets(*d, std::nullopt, at_of(at), true);
  }
  ok = bulk_view(src, tile::Space::shared, "src", at) && ok;
  ok = bulk_operands(options, at, op) && ok;
  if (!ok)
    return;
  op.src = located(src, at);
  if (options.map)
    op.map = located(*options.map, at);
  push(std::move(op), at);
}

void KernelBuilder::tensor_reduce(const View& tensor, const std::vector<Expr>& coords,
                                  const View& src, tile::ReduceKind reduce,
                                  const BulkOptions& options, Pos at) {
  tile::TensorReduceOp op;
  bool ok = tensor_operand(tensor, coords, at, op.tensor, op.coords);
  if (ok) { // a reduction goes through a tile map, as a store
    const tile::TensorDecl* d = b_->mapped_tensor(text_of(tensor.text(), at));
    ok = d && b_->im2col_offsets(*d, std::nullopt, at_of(at), true);
  }
  ok = bulk_view(src, tile::Space::shared, "src", at) && ok;
  ok = bulk_operands(options, at, op) && ok;
  if (!ok)
    return;
  op.src = located(src, at);
  op.reduce = reduce;
  op.reduce_pos = at.source_pos();
  push(std::move(op), at);
}

void KernelBuilder::prefetch_tensormap(const View& tensor, const std::optional<Expr>& pred,
                                       Pos at) {
  tile::PrefetchTensormapOp op;
  bool ok = pred ? check_expr(*pred, at) : true;
  if (!tensor.ok()) {
    b_->report(*tensor.error());
    return;
  }
  if (!b_->mapped_tensor(text_of(tensor.text(), at)) || !ok)
    return;
  op.tensor = {tensor.text(), tensor.text(), at.source_pos()};
  if (pred)
    op.pred = located(*pred, at);
  push(std::move(op), at);
}

// ---------------------------------------------------------------- a pipeline's mbarrier ring

std::optional<tile::Located<tile::View>>
KernelBuilder::ring_barrier(const std::function<View(const PipelineVars&)>& make,
                            const PipelineVars& vars, const Pos& at) {
  if (!make)
    return std::nullopt;
  const View v = make(vars);
  if (check_view(v, at) && b_->barrier(v.tile(), at_of(at)))
    return located(v, at);
  return std::nullopt;
}

/// `full`, `empty` and `ring_offset` fit the loads' kind (`first_load`'s), and the barriers
/// are one per stage; a ring pipeline gets its ring.
bool KernelBuilder::pipeline_ring(const PipelineOptions& o, tile::Pipeline& p,
                                  std::string_view first_load,
                                  std::optional<tile::Located<tile::View>> full,
                                  std::optional<tile::Located<tile::View>> empty, const Pos& at) {
  const bool ring = first_load == "bulk_load" || first_load == "tensor_load";
  const build::At where = at_of(at);
  bool ok = b_->pipeline_ring_key(ring, "full", o.full != nullptr, where);
  ok = b_->pipeline_ring_key(ring, "empty", o.empty != nullptr, where) && ok;
  ok = b_->pipeline_ring_key(ring, "ring_offset", o.ring_offset.has_value(), where) && ok;
  if (!ring)
    return ok;
  // A barrier given but refused is reported already.
  ok = full && b_->pipeline_ring_barrier(p, *full, "full", where) && ok;
  ok = empty && b_->pipeline_ring_barrier(p, *empty, "empty", where) && ok;
  if (!ok)
    return false;
  p.ring = tile::PipelineRing{std::move(*full), std::move(*empty), std::nullopt, 1, std::nullopt};
  if (o.ring_offset)
    p.ring->offset = located(*o.ring_offset, at);
  return true;
}

/// The warp-specialized ring's options, each at the call site.
bool KernelBuilder::pipeline_roles(const PipelineOptions& o, tile::Pipeline& p, const Pos& at) {
  const auto key = [&](const std::optional<std::int64_t>& v) {
    return v ? std::optional(tile::Located<std::int64_t>{*v, std::to_string(*v), at.source_pos()})
             : std::nullopt;
  };
  build::Builder::RoleKeys keys{key(o.producer_warps), key(o.producer_regs), key(o.consumer_regs),
                                key(o.consumer_barrier), std::nullopt};
  if (o.multicast)
    keys.multicast = tile::Located<bool>{true, "true", at.source_pos()};
  return b_->pipeline_roles(p, keys);
}

} // namespace ptxgen::api
