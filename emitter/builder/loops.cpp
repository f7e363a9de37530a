// The builder's loop and pipeline rules, the pipeline expansion, and the result.
#include "emitter/builder/builder.hpp"
#include "emitter/builder/text.hpp"
#include "emitter/lower/abi.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"
#include "emitter/tile/limits.hpp"
#include "emitter/tile/name_chars.hpp"

#include <algorithm>
#include <bit>
#include <functional>

namespace ptxgen::build {

namespace {

/// True when a runtime index of `v` uses a loop variable named `a` or `b`.
bool uses_loop_var(const tile::View& v, const std::string& a, const std::string& b) {
  const auto named = [&](const tile::Expr& e) {
    return e.kind == tile::ExprKind::loop && (e.name == a || e.name == b);
  };
  return std::any_of(v.terms.begin(), v.terms.end(), [&](const tile::RuntimeTerm& t) {
    return tile::find_node(*t.index, named) != nullptr;
  });
}

/// The piece of `text` an expression node spans, or its printed form when it has no
/// span there (a tree built in C++).
std::string spelled(const tile::Expr& e, std::string_view text) {
  if (e.length > 0 && e.offset + e.length <= text.size())
    return std::string(text.substr(e.offset, e.length));
  return tile::print(e);
}

} // namespace

void Builder::missing(const At& at, std::string message) {
  error(DiagId::spec_missing_key, at, std::move(message));
}

// ---------------------------------------------------------------- loops

/// Why `n` cannot name a loop variable (not an identifier, reserved, a parameter, a
/// tensor or the variable of an enclosing loop); empty when it can.
std::string Builder::loop_name_problem(const std::string& n) const {
  const auto reserved = reserved_names();
  if (n.empty() || !tile::name_start(n[0]) || !std::all_of(n.begin(), n.end(), tile::name_char))
    return "is not an identifier (letters, digits and '_', not starting with a digit)";
  if (std::find(reserved.begin(), reserved.end(), n) != reserved.end()) {
    std::string list;
    for (std::string_view r : reserved)
      list += (list.empty() ? "" : ", ") + std::string(r);
    return "is reserved in expressions (" + list + ")";
  }
  if (is_param(n))
    return "is a kernel parameter";
  if (find_any_tensor(n))
    return "is a tensor";
  if (is_open_loop(n))
    return "is the variable of an enclosing loop";
  return {};
}

bool Builder::loop_var(const Text& name, std::string_view what) {
  return loop_var_in(name, what, loop_name_problem(name.text), nullptr);
}

/// Reports `problem` of a loop variable `name` (nothing when empty): inside the name
/// when `at` is null, else at `at` with the way out (a default name the caller did
/// not write).
bool Builder::loop_var_in(const Text& name, std::string_view what, const std::string& problem,
                          const At* at) {
  if (problem.empty())
    return true;
  const std::string message = std::string(what) + " " + quoted(name.text) + " " + problem;
  // A default name the caller did not write is reported where it applies, with the way out.
  error(DiagId::spec_loop_var_name, at ? *at : name.at(0, name.text.size()),
        at ? message + "; name it otherwise with stage_var = \"s\"" : message);
  return false;
}

bool Builder::loop_bound(std::string_view key, const tile::Expr& bound, const Text& at) {
  const tile::Expr* t = tile::find_node(bound, tile::is_per_thread_leaf);
  if (!t)
    return true;
  error_in(DiagId::spec_loop_bound_per_thread, at, t->offset, t->length,
           std::string(key) + " of a loop must be the same for every thread of a CTA; '" +
               spelled(*t, at.text) +
               "' differs between threads (use bid, nbid, parameters, constants or enclosing "
               "loop variables)");
  return false;
}

std::optional<std::int64_t> Builder::unroll(std::int64_t n, const At& at) {
  if (n >= 1 && n <= tile::kMaxUnroll)
    return n;
  error(DiagId::spec_loop_unroll_range, at,
        "unroll must be in 1.." + std::to_string(tile::kMaxUnroll) + "; got " + std::to_string(n));
  return std::nullopt;
}

void Builder::begin_for(const std::string& var, std::optional<tile::ForOp> f,
                        const tile::SourcePos& pos) {
  OpenLoop open{var, kNoOp, pos};
  if (f) {
    open.index = kernel_->ops.size();
    kernel_->ops.push_back(tile::Op{std::move(*f), pos});
  }
  loops_.push_back(std::move(open));
}

void Builder::end_for(const At& at) {
  if (loops_.empty())
    return error(DiagId::spec_loop_stray_end, at,
                 "`end` without a `for`: every op = \"end\" closes the innermost open loop");
  const OpenLoop open = loops_.back();
  loops_.pop_back();
  if (open.index == kNoOp)
    return; // its `for` was rejected and reported
  std::get<tile::ForOp>(kernel_->ops[open.index].body).end = kernel_->ops.size();
  kernel_->ops.push_back(tile::Op{tile::EndOp{open.index}, at.pos});
  // The closing cluster_sync of the multicast rings inside it, once the outermost loop ends.
  if (ring_exit_sync_ && !in_loop()) {
    using Role = tile::OpOrigin::Role;
    kernel_->ops.push_back(
        tile::Op{tile::ClusterSyncOp{}, *ring_exit_sync_, {Role::ring_exit, -1}});
    ring_exit_sync_.reset();
  }
}

bool Builder::in_loop() const {
  return std::any_of(loops_.begin(), loops_.end(),
                     [](const OpenLoop& l) { return l.index != kNoOp; });
}

Diagnostics Builder::open_loop_diagnostics() const {
  Diagnostics out;
  for (const OpenLoop& l : loops_)
    out.add(tile::diagnostic_at(DiagId::spec_loop_unclosed, l.pos,
                                "this `for` has no matching op = \"end\" (loop " + quoted(l.var) +
                                    ")"));
  return out;
}

void Builder::close_loops() {
  diags_.append(open_loop_diagnostics());
  loops_.clear();
}

// ---------------------------------------------------------------- pipelines

std::optional<std::int64_t> Builder::stages(std::int64_t n, const At& at) {
  if (n >= tile::kMinPipelineStages && n <= tile::kMaxPipelineStages)
    return n;
  error(DiagId::spec_pipeline_stages, at,
        "stages must be in " + std::to_string(tile::kMinPipelineStages) + ".." +
            std::to_string(tile::kMaxPipelineStages) + "; got " + std::to_string(n) +
            (n == 1 ? " (one stage cannot overlap a tile's load with the consumer of the "
                      "previous one: write the loop with op = \"for\")"
                    : ""));
  return std::nullopt;
}

bool Builder::pipeline_step(std::optional<std::int64_t> step, const At& at) {
  if (step == 1)
    return true;
  error(DiagId::spec_pipeline_step, at,
        "a pipeline's tiles advance by 1 (step = 1, or no step); for a strided tile loop write "
        "op = \"for\" with the stages, waits and barriers yourself");
  return false;
}

bool Builder::stage_var(const Text& name, const std::string& tile_var, bool given, const At& at) {
  std::string problem = loop_name_problem(name.text);
  if (problem.empty() && name.text == tile_var)
    problem = "is the pipeline's tile variable";
  return loop_var_in(name, "stage variable", problem, given ? nullptr : &at);
}

std::size_t Builder::open_pipeline_vars(const std::string& var, const std::string& stage,
                                        const tile::SourcePos& pos) {
  const std::size_t mark = loops_.size();
  loops_.push_back(OpenLoop{var, kNoOp, pos});
  loops_.push_back(OpenLoop{stage, kNoOp, pos});
  return mark;
}

void Builder::close_pipeline_vars(std::size_t mark) {
  loops_.erase(loops_.begin() + static_cast<std::ptrdiff_t>(mark), loops_.end());
}

bool Builder::pipeline_load_kind(std::string_view kind, std::string_view first, const At& at) {
  const bool known = kind == "apply" || kind == "bulk_load" || kind == "tensor_load";
  const bool ring = kind != "apply";
  if (known && (first.empty() || ring == (first != "apply")))
    return true;
  if (!known) {
    error(DiagId::spec_pipeline_load_op, at,
          "a pipeline's [[op.load]] is a cp.async apply; op " + quoted(kind) +
              " belongs in [[op.body]] (the consumer) or outside the pipeline (a TMA "
              "pipeline's loads are bulk_load or tensor_load ops)");
  } else {
    error(DiagId::spec_pipeline_load_op, at,
          "the loads of one pipeline complete one way: cp.async applies through commit groups, "
          "bulk_load and tensor_load through the mbarrier ring; this " +
              quoted(kind) + " follows a " + quoted(first));
  }
  return false;
}

bool Builder::pipeline_ring_barrier(const tile::Pipeline& p, const tile::Located<tile::View>& v,
                                    std::string_view key, const At& at) {
  const bool stage = uses_loop_var(v.value, p.stage_var, p.stage_var);
  const bool tile = uses_loop_var(v.value, p.var.value, p.var.value);
  if (stage && !tile)
    return true;
  error(DiagId::spec_pipeline_ring_barrier, at,
        std::string(key) + " is one barrier per stage: index it with '" + p.stage_var + "' " +
            (tile ? "alone, not with the tile variable '" + p.var.value +
                        "' (the barriers are initialised before the first tile)"
                  : "(e.g. '" + v.value.tensor->name + ".sub[" + p.stage_var +
                        "]'): one barrier for every stage would count the arrivals of " +
                        "several stages in one phase"));
  return false;
}

void Builder::pipeline_load_barrier(const At& at) {
  error(DiagId::spec_pipeline_ring_barrier, at,
        "a pipeline's bulk_load and tensor_load complete on the pipeline's full barrier of "
        "their stage (its expect_tx counts their bytes): leave barrier out");
}

bool Builder::pipeline_ring_key(bool ring, std::string_view key, bool written, const At& at) {
  if (ring == written || (ring && key == "ring_offset"))
    return true;
  if (ring)
    missing(at, "a pipeline of bulk_load / tensor_load loads completes through an mbarrier "
                "ring: give " +
                    std::string(key) + " = '" + std::string(key) +
                    ".sub[stage]' (an 8-byte view of a shared uint64 tensor with one element "
                    "per stage; full and empty both)");
  else
    error(DiagId::spec_pipeline_ring_barrier, at,
          quoted(key) + " belongs to a pipeline of bulk_load / tensor_load loads (the mbarrier "
                        "ring); cp.async applies complete through commit groups");
  return false;
}

bool Builder::pipeline_load_stage(const tile::Pipeline& p, const tile::View& dst, const At& at) {
  if (uses_loop_var(dst, p.var.value, p.stage_var))
    return true;
  error(DiagId::spec_pipeline_load_stage, at,
        "the load's dst does not depend on the stage: every tile would land in the same shared "
        "bytes, refilled while they are read; index the ring with '" +
            p.stage_var + "' (or '" + p.var.value + " % " + std::to_string(p.stages) + "')");
  return false;
}

bool Builder::pipeline_body_kind(std::string_view kind, const At& at) {
  if (kind == "copy" || kind == "fill")
    return true;
  error(DiagId::spec_pipeline_body_op, at,
        "a pipeline's consumer ([[op.body]]) holds only copy and fill ops; not " + quoted(kind) +
            " (the pipeline writes its own commits, waits and barriers, and a cp.async in the "
            "consumer would join the pipeline's groups)");
  return false;
}

void Builder::place_ring_init(const tile::Pipeline& p) {
  const auto outer = std::find_if(loops_.begin(), loops_.end(),
                                  [](const OpenLoop& l) { return l.index != kNoOp; });
  const std::size_t at = outer == loops_.end() ? kernel_->ops.size() : outer->index;
  insert_ops(at, tile::pipeline_ring_init(p));
  // A generic write to a stage before the ring meets its first loads' async proxy: the
  // writers' fence goes right after the last such write (before the barrier, the init's
  // cta_sync or the producer's wait, that orders thread 0's loads after it).
  if (const auto fence = tile::pipeline_fence_after(p, kernel_->ops)) {
    using Role = tile::OpOrigin::Role;
    insert_ops(*fence, {tile::Op{tile::ProxyFenceOp{}, p.pos, {Role::ring_init, -1}}});
  }
}

void Builder::insert_ops(std::size_t at, std::vector<tile::Op> init) {
  const std::size_t n = init.size();
  // The ops from `at` on move by n: the loop indices that point at them move too (`at`
  // may lie inside a closed loop, whose for stays and whose end moves).
  for (std::size_t i = 0; i < kernel_->ops.size(); ++i) {
    if (auto* f = std::get_if<tile::ForOp>(&kernel_->ops[i].body); f && (i >= at || f->end >= at))
      f->end += n;
    else if (auto* e = std::get_if<tile::EndOp>(&kernel_->ops[i].body); e && e->begin >= at)
      e->begin += n;
  }
  for (OpenLoop& l : loops_)
    if (l.index != kNoOp && l.index >= at)
      l.index += n;
  kernel_->ops.insert(kernel_->ops.begin() + static_cast<std::ptrdiff_t>(at),
                      std::make_move_iterator(init.begin()), std::make_move_iterator(init.end()));
}

bool Builder::pipeline_roles(tile::Pipeline& p, const RoleKeys& keys) {
  const std::pair<std::string_view, const std::optional<tile::Located<std::int64_t>>*> given[] = {
      {"producer_warps", &keys.producer_warps},
      {"producer_regs", &keys.producer_regs},
      {"consumer_regs", &keys.consumer_regs},
      {"consumer_barrier", &keys.consumer_barrier}};
  bool ok = true;
  const auto role_key = [&](std::string_view key, const At& where) {
    if (!p.ring) {
      ok = pipeline_ring_key(false, key, true, where) && ok;
    } else if (!keys.producer_warps) {
      error(DiagId::spec_pipeline_producer_warps, where,
            quoted(key) + " belongs to a warp-specialized ring: give producer_warps, the warps "
                          "(from warp 0) that load, e.g. producer_warps = 1");
      ok = false;
    }
  };
  for (const auto& [key, value] : given)
    if (*value)
      role_key(key, {(*value)->pos, static_cast<std::uint32_t>((*value)->text.size())});
  const std::optional<At> multicast =
      keys.multicast ? std::optional(At{keys.multicast->pos,
                                        static_cast<std::uint32_t>(keys.multicast->text.size())})
                     : std::nullopt;
  if (multicast && !p.ring)
    ok = pipeline_ring_key(false, "multicast", true, *multicast) && ok;
  ok = (keys.multicast || pipeline_loads_unmasked(p)) && ok;
  if (!ok || (multicast && !multicast_ring_fits(keys, *multicast)))
    return false;
  if (keys.producer_warps) {
    for (const tile::Op& op : p.body) {
      if (!std::holds_alternative<tile::FillOp>(op.body))
        continue;
      error(DiagId::spec_pipeline_body_op, {op.pos, 1},
            "the consumer of a warp-specialized ring (producer_warps) holds copies only: a fill "
            "has no pred to keep it off the producer warps");
      ok = false;
    }
    if (!ok)
      return false;
    p.ring->roles = tile::PipelineRoles{*keys.producer_warps, keys.producer_regs,
                                        keys.consumer_regs, keys.consumer_barrier};
  }
  if (!keys.multicast)
    return true;
  p.ring->multicast = tile::PipelineMulticast{tile::Located<std::int64_t>{
      kernel_->cluster_dim().count(), keys.multicast->text, keys.multicast->pos}};
  return multicast_counts(p);
}

namespace {

/// A load's own multicast mask, or nullptr.
const std::optional<tile::Located<tile::ExprPtr>>* load_mask(const tile::Op& op) {
  if (const auto* b = std::get_if<tile::BulkLoadOp>(&op.body))
    return &b->multicast;
  if (const auto* t = std::get_if<tile::TensorLoadOp>(&op.body))
    return &t->multicast;
  return nullptr;
}

/// What one CTA's stage of a multicast ring receives: the union of its loads' masks and the
/// bytes they land in each receiver.
struct StageCounts {
  std::int64_t ranks = 0; ///< the union of the masks, inside the cluster
  std::int64_t bytes = 0; ///< sum over the loads of their bytes times their mask's CTAs
  int senders() const { return std::popcount(static_cast<std::uint64_t>(ranks)); }
  /// The same barrier counts: as many CTAs (each CTA's own), as many bytes.
  bool same_counts(const StageCounts& o) const {
    return senders() == o.senders() && bytes == o.bytes;
  }
};

} // namespace

bool Builder::multicast_counts(tile::Pipeline& p) {
  tile::PipelineMulticast& counts = *p.ring->multicast;
  const std::int64_t all = (std::int64_t{1} << counts.ctas.value) - 1;
  // Each mask is a value per CTA: a thread, tile or parameter would make the counts move (the
  // environment has no loop variables or parameters, so evaluating such a mask fails).
  const auto not_per_cta = [&](const tile::Located<tile::ExprPtr>& mask) {
    error(DiagId::spec_pipeline_multicast_mask,
          {mask.pos, static_cast<std::uint32_t>(mask.text.size())},
          "a multicast ring's load mask is fixed per CTA (the ring's barrier counts follow "
          "from it): write it from cluster_rank, cluster_id, bid and constants, not from a "
          "thread, a tile, a loop or a parameter (e.g. multicast = \"3 << (2 * (cluster_rank "
          "/ 2))\", the CTA's row of a 2 x 2 cluster)");
    return false;
  };
  for (const tile::Op& op : p.loads)
    if (const auto* mask = load_mask(op); mask && *mask && tile::uses_thread(*(*mask)->value))
      return not_per_cta(**mask);
  std::optional<StageCounts> first;
  for (std::int64_t cta = 0; cta < kernel_->grid; ++cta) {
    const tile::ExprEnv env = cta_env(cta);
    StageCounts c;
    for (const tile::Op& op : p.loads) {
      const auto* mask = load_mask(op);
      std::int64_t m = all;
      if (mask && *mask) {
        const auto value = tile::evaluate(*(*mask)->value, env);
        if (!value)
          return not_per_cta(**mask);
        m = *value & all;
      }
      c.ranks |= m;
      c.bytes += tile::pipeline_load_bytes(op) * std::popcount(static_cast<std::uint64_t>(m));
    }
    if (!first) {
      first = c;
      continue;
    }
    if (c.same_counts(*first))
      continue;
    const tile::Op& op = p.loads.front();
    const auto* mask = load_mask(op);
    const At at = mask && *mask ? At{(*mask)->pos, static_cast<std::uint32_t>((*mask)->text.size())}
                                : At{op.pos, 1};
    error(DiagId::spec_pipeline_multicast_mask, at,
          "a multicast ring's barriers count the same in every CTA, but CTA 0's loads go to " +
              std::to_string(first->senders()) + " CTAs, " + std::to_string(first->bytes) +
              " bytes a stage, and CTA " + std::to_string(cta) + "'s to " +
              std::to_string(c.senders()) + ", " + std::to_string(c.bytes) +
              ": give every CTA masks of the same sizes (a row or a column of the cluster)");
    return false;
  }
  counts.senders = first->senders();
  counts.stage_bytes = first->bytes;
  if (first->ranks != all) {
    // The union of the masks, as the consumers' release evaluates it.
    for (const tile::Op& op : p.loads) {
      const tile::ExprPtr m = (*load_mask(op))->value;
      counts.release_mask =
          counts.release_mask ? tile::make_binary(tile::ExprOp::bit_or, counts.release_mask, m) : m;
    }
  }
  return true;
}

tile::ExprEnv Builder::cta_env(std::int64_t cta) const {
  tile::ExprEnv env;
  env.bid = cta;
  env.block_dim = kernel_->block_dim;
  env.grid_dim = kernel_->grid_dim;
  env.cluster_dim = kernel_->cluster_dim();
  return env;
}

bool Builder::pipeline_loads_unmasked(const tile::Pipeline& p) {
  bool ok = true;
  for (const tile::Op& op : p.loads) {
    const auto* mask = load_mask(op);
    if (!mask || !*mask)
      continue;
    error(DiagId::spec_pipeline_ring_barrier,
          {(*mask)->pos, static_cast<std::uint32_t>((*mask)->text.size())},
          "a pipeline's load multicasts only in a ring with multicast = true, which also "
          "makes full expect every receiving CTA's share and empty hear their consumers: give "
          "the pipeline multicast = true, or leave multicast out of the load");
    ok = false;
  }
  return ok;
}

bool Builder::multicast_ring_fits(const RoleKeys& keys, const At& where) {
  if (!kernel_->cluster) {
    error(DiagId::spec_cluster_undeclared, where,
          "a multicast ring sends each CTA's share of a tile to every CTA of its cluster, but "
          "the kernel declares no cluster: add cluster = N to [kernel]");
    return false;
  }
  if (keys.producer_warps && !keys.consumer_barrier) {
    missing(where, "a warp-specialized multicast ring's consumers release a stage once per CTA, "
                   "on the empty barrier of each CTA of the cluster, after a named barrier among "
                   "them: give consumer_barrier, its id (1..15), e.g. consumer_barrier = 1");
    return false;
  }
  return true;
}

bool Builder::ring_roles_fit(tile::PipelineRing& ring) {
  if (!ring.roles)
    return true;
  const tile::Located<std::int64_t>& p = ring.roles->producer_warps;
  const At where{p.pos, static_cast<std::uint32_t>(p.text.size())};
  const std::int64_t block = kernel_->block;
  if (block % 32 != 0) {
    error(DiagId::spec_pipeline_producer_warps, where,
          "a warp-specialized ring gives whole warps their roles, but the block has " +
              std::to_string(block) + " threads, not a multiple of 32");
    return false;
  }
  if (p.value < 1 || p.value >= block / 32) {
    error(DiagId::spec_pipeline_producer_warps, where,
          "producer_warps = " + std::to_string(p.value) + " must lie in 1.." +
              std::to_string(block / 32 - 1) + ": the block has " + std::to_string(block / 32) +
              " warps, and at least one consumes");
    return false;
  }
  ring.consumers = block - 32 * p.value;
  return true;
}

void Builder::pipeline(tile::Pipeline p, const At& at) {
  if (p.loads.empty() || p.body.empty())
    return missing(at, "a pipeline needs at least one load and one consumer op");
  if (p.ring) {
    if (!loops_.empty() && !p.ring->offset)
      return error(DiagId::spec_pipeline_ring_offset, at,
                   "a pipeline of bulk_load / tensor_load loads inside a loop reuses its "
                   "barriers in every iteration: give ring_offset, the tiles the ring carried "
                   "before this pipeline (e.g. ring_offset = \"m * k_tiles\" in a loop over m), "
                   "from which each wait's parity follows");
    p.ring->consumers = kernel_->block;
    if (!ring_roles_fit(*p.ring))
      return;
    place_ring_init(p);
  }
  p.sync_before = tile::pipeline_needs_sync(p, kernel_->ops, !loops_.empty());
  if (p.ring && p.ring->multicast && in_loop()) {
    p.exit_sync = false;
    ring_exit_sync_ = p.pos;
  }
  for (tile::Op& op : tile::expand_pipeline(p, kernel_->ops.size(), kernel_->launch_bounds()))
    kernel_->ops.push_back(std::move(op));
}

// ---------------------------------------------------------------- results

void Builder::check_map_only_views() {
  const auto check = [&](const tile::Located<tile::View>& v) {
    const tile::Tensor* t = v.value.tensor;
    if (t == nullptr || t->space != tile::Space::global || !lower::map_only(*kernel_, t->name))
      return;
    error(DiagId::spec_abi_missing_name, {v.pos, static_cast<std::uint32_t>(v.text.size())},
          "'" + v.text + "' addresses '" + t->name + "' through its pointer, but abi lists only " +
              "its map ('" + lower::map_param_name(t->name) + "'): list '" + t->name +
              "' too, or reach it through the map (tensor_load, "
              "tensor_store)");
  };
  for (const tile::Op& op : kernel_->ops) {
    if (const auto* a = std::get_if<tile::ApplyOp>(&op.body)) {
      check(a->dst);
      check(a->src);
    } else if (const auto* c = std::get_if<tile::CopyOp>(&op.body)) {
      check(c->dst);
      check(c->src);
    } else if (const auto* f = std::get_if<tile::FillOp>(&op.body)) {
      check(f->dst);
    } else if (const auto* l = std::get_if<tile::BulkLoadOp>(&op.body)) {
      check(l->src);
    } else if (const auto* s = std::get_if<tile::BulkStoreOp>(&op.body)) {
      check(s->dst);
    } else if (const auto* r = std::get_if<tile::BulkReduceOp>(&op.body)) {
      check(r->dst);
    }
  }
}

Result<std::unique_ptr<tile::Kernel>> Builder::finish() && {
  close_loops();
  check_map_only_views();
  diags_.append(cluster_diagnostics());
  if (diags_.has_errors())
    return Result<std::unique_ptr<tile::Kernel>>::failure(std::move(diags_));
  Result<std::unique_ptr<tile::Kernel>> r;
  r.value = std::move(kernel_);
  r.diagnostics = std::move(diags_);
  return r;
}

} // namespace ptxgen::build
