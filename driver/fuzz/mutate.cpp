// Invalid mutants of a generated spec: each is one typed edit of the model that breaks one
// rule of the spec language, the contract or the launch as a whole, and names the one
// DiagId `check` must refuse it with.

#include "driver/fuzz/mutate.hpp"

#include "driver/fuzz/gen_build.hpp"
#include "driver/fuzz/generator.hpp"
#include "driver/fuzz/mutate_bulk.hpp"
#include "driver/fuzz/mutate_cluster.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/ptx/feature.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace ptxgen::driver::fuzz {

Diagnostics check_spec_text(std::string_view toml, std::string display_name,
                            const RangeProofOptions& range) {
  Diagnostics ds;
  auto loaded = load_spec_text(toml, std::move(display_name));
  ds.append(loaded.diagnostics);
  if (!loaded)
    return ds;
  lower::LowerOptions options;
  options.target = emitted_target;
  options.raise_target = true; // a spec of sm_90 ops (the bulk family) is judged for sm_90
  auto lowered = lower::lower(**loaded.value, options);
  ds.append(lowered.diagnostics);
  if (lowered)
    ds.append(whole_launch_findings(**loaded.value, range));
  return ds;
}

namespace {

/// The apply a rule edits: one of the model's (a pipeline's loads included), by `rng`.
ModelApply* some_apply(SpecModel& m, Rng& rng) {
  auto applies = parts_of(m).applies;
  return applies.empty() ? nullptr : applies[rng.below(applies.size())];
}

bool any_apply(const SpecModel& m, bool (*f)(const ModelApply&)) {
  SpecModel copy = m;
  const auto applies = parts_of(copy).applies;
  return std::any_of(applies.begin(), applies.end(), [&](const ModelApply* a) { return f(*a); });
}

template <class Op>
bool has_op(const SpecModel& m) {
  return std::any_of(m.ops.begin(), m.ops.end(), [](const ModelOp& op) { return op.is<Op>(); });
}

std::int64_t threads_per_cta(const SpecModel& m) {
  std::int64_t n = 1;
  for (auto t : m.block)
    n *= t;
  return n;
}

/// Removes every top-level op of the given kinds; false when there was none.
template <class... Ops>
bool erase_ops(SpecModel& m) {
  return std::erase_if(m.ops, [](const ModelOp& op) { return (op.is<Ops>() || ...); }) > 0;
}

// ---- the launch

bool block_zero(SpecModel& m, Rng&) {
  m.block = {0};
  return true;
}
bool block_2048(SpecModel& m, Rng&) {
  m.block = {2 * max_block_threads};
  return true;
}
bool grid_zero(SpecModel& m, Rng&) {
  m.grid = {0};
  return true;
}

// ---- one apply

bool chunk_12(SpecModel& m, Rng& rng) {
  auto* a = some_apply(m, rng);
  return a && (a->chunk_bytes = 12, true);
}
bool src_size_above_chunk(SpecModel& m, Rng& rng) {
  auto* a = some_apply(m, rng);
  if (!a || a->ignore_src)
    return false;
  a->src_size = a->chunk_bytes + 1;
  return true;
}
bool hint_dropped(SpecModel& m, Rng& rng) {
  auto* a = some_apply(m, rng);
  return a && a->opcode.cache_hint && !(a->opcode.cache_hint = false);
}
bool hint_without_policy(SpecModel& m, Rng& rng) {
  auto* a = some_apply(m, rng);
  return a && !a->opcode.cache_hint && (a->opcode.cache_hint = true);
}
bool misspelt_key(SpecModel& m, Rng& rng) {
  auto* a = some_apply(m, rng);
  return a && (a->unknown.push_back({"chunk_byte", cg_chunk}), true);
}
bool pred_unknown_name(SpecModel& m, Rng& rng) {
  auto* a = some_apply(m, rng);
  return a && (a->pred = ExprText{"tid < no_such_param"}, true);
}
bool unknown_scope(SpecModel& m, Rng& rng) {
  auto* a = some_apply(m, rng);
  return a && (a->scope = ScopeName::warp, true);
}

// ---- tensors, parameters, abi

bool unknown_dtype_of(SpecModel& m, Rng& rng) {
  m.tensors[rng.below(m.tensors.size())].dtype = unknown_dtype;
  return true;
}
bool shared_beyond_every_target(SpecModel& m, Rng&) {
  ModelTensor huge;
  huge.name = "huge";
  huge.shared = true;
  // One tensor may be as large as the most any target has; with the others it is beyond.
  huge.shape = {ptx::max_dynamic_shared_bytes_any_target()};
  huge.dtype = byte_dtype;
  m.tensors.push_back(huge);
  return true;
}
/// The src tensor one row short: the last thread's row lies outside it. Only where every
/// src row is some thread's (rows that depend on a parameter or are divided may never
/// reach the last row) and at thread scope.
bool src_row_short(SpecModel& m, Rng&) {
  if (m.family != Family::tile || m.has(Feature::param_index) || m.has(Feature::arithmetic_index) ||
      any_apply(m, [](const ModelApply& a) { return a.scope == ScopeName::cta; }))
    return false;
  for (auto& t : m.tensors)
    if (!t.shared && !t.output && t.shape.size() == 2 && t.shape[0] >= 2) {
      --t.shape[0];
      m.expects.clear();
      return true;
    }
  return false;
}
bool param_above_range(SpecModel& m, Rng&) {
  for (auto& p : m.params)
    if (p.range) {
      p.value = (*p.range)[1] + 1;
      return true;
    }
  return false;
}
bool abi_missing(SpecModel& m, Rng&) {
  if (m.abi.size() < 2)
    return false;
  m.abi.pop_back();
  return true;
}
/// The last name is then missing as well (spec_abi_missing_name follows); the rule names
/// the cause, the duplicate.
bool abi_twice(SpecModel& m, Rng&) {
  if (m.abi.size() < 2)
    return false;
  m.abi.back() = m.abi.front();
  return true;
}

// ---- control

/// Sets `field` of every part of one kind to `value`; false when the model has none.
template <class Part, class Field>
bool set_every(const std::vector<Part*>& parts, Field Part::*field, const Field& value) {
  for (Part* p : parts)
    p->*field = value;
  return !parts.empty();
}

bool wait_group_65(SpecModel& m, Rng&) {
  return set_every(parts_of(m).wait_groups, &ModelWaitGroup::n, std::int64_t{65});
}
/// Without a wait, the copies' reads are pending, unless no copy is ever issued (a pred
/// that is false for every thread, as `warp != 0` in one warp), nor where a loop starts at
/// a parameter (at the test values it may not run at all). The first hazard is the read
/// (check_read_pending); what check reports after it (copies never waited, a refill while
/// pending) follows from the same missing wait and is not the rule's.
bool no_wait(SpecModel& m, Rng&) {
  if ((m.family != Family::tile && m.family != Family::loop) ||
      any_apply(m, [](const ModelApply& a) { return a.pred.has_value(); }) ||
      m.has(Feature::loop_start_param))
    return false;
  return erase_ops<ModelWaitGroup, ModelWaitAll>(m);
}
/// A thread reads back a row another thread copied: without the barrier that is a race
/// (with a fill there would be a second one; keep to the plain case).
bool no_barrier(SpecModel& m, Rng&) {
  if (m.family != Family::tile || !m.has(Feature::cross_thread_readback) || has_op<ModelFill>(m))
    return false;
  return erase_ops<ModelCtaSync>(m);
}
bool loop_unclosed(SpecModel& m, Rng&) {
  return erase_ops<ModelEnd>(m);
}
/// Every loop, a pipeline's included: its unroll goes through the same rule.
bool unroll_65(SpecModel& m, Rng&) {
  return set_every(parts_of(m).loops, &ModelFor::unroll, std::optional<std::int64_t>(65));
}
bool stages_9(SpecModel& m, Rng&) {
  return set_every(parts_of(m).pipelines, &ModelPipeline::stages, std::int64_t{9});
}
bool mbarrier_count_2_20(SpecModel& m, Rng&) {
  return set_every(parts_of(m).mbarrier_inits, &ModelMbarrierInit::count, std::int64_t{1} << 20);
}

// ---- racy only away from the test value: each rule moves the test value to where the
// kernel is still right (and drops the expectations, which held at the old value), so
// that only a check over the declared range refuses it.

/// The parameter a loop's stop names (a runtime trip count), or null.
ModelParam* stop_param(SpecModel& m, const ModelFor& f) {
  const auto* e = std::get_if<ExprText>(&f.stop);
  if (!e)
    return nullptr;
  for (auto& p : m.params)
    if (p.name == e->text && p.range)
      return &p;
  return nullptr;
}

/// Moves `p`'s test value into [lo, hi] (clamped), dropping the expectations if it moved;
/// false when the range has no such value or none outside it (where the race shows).
bool test_value_within(SpecModel& m, ModelParam& p, std::uint64_t lo, std::uint64_t hi) {
  const auto [rlo, rhi] = *p.range;
  lo = std::max(lo, rlo);
  hi = std::min(hi, rhi);
  if (lo > hi || (lo == rlo && hi == rhi))
    return false;
  const std::uint64_t v = std::clamp(p.value, lo, hi);
  if (v != p.value)
    m.expects.clear();
  p.value = v;
  return true;
}

/// The top-level `for` whose variable is `var`, or null.
ModelFor* loop_named(SpecModel& m, std::string_view var) {
  for (auto& op : m.ops)
    if (auto* f = std::get_if<ModelFor>(&op.body); f && f->var == var)
      return f;
  return nullptr;
}

/// The stages of a hand-written ring (generate_ring_loop): its ring tensor's first axis.
std::int64_t ring_stages(const SpecModel& m) {
  for (const auto& t : m.tensors)
    if (t.name == "ring" && t.shared)
      return t.shape.front();
  return 0;
}

/// A ring's prologue (for p) followed by its steady state (for k over a parameter), S >= 3.
struct Ring {
  ModelFor* prologue = nullptr;
  ModelFor* steady = nullptr;
  ModelParam* trips = nullptr;
  std::int64_t stages = 0;
};
std::optional<Ring> ring_of(SpecModel& m) {
  Ring r{loop_named(m, "p"), loop_named(m, "k"), nullptr, ring_stages(m)};
  if (m.family != Family::pipeline || !r.prologue || !r.steady || r.stages < 3 ||
      !(r.trips = stop_param(m, *r.steady)))
    return std::nullopt;
  return r;
}

/// The prologue commits only the tiles that exist, min(S - 1, n), under the steady state's
/// wait_group S - 2: fewer than S - 1 tiles leave tile 0's group pending at the first read.
/// Racy for n in 1..S - 2; the test value is moved to S - 1 or above.
bool prologue_without_empty_commits(SpecModel& m, Rng&) {
  auto r = ring_of(m);
  if (!r || !std::holds_alternative<std::int64_t>(r->prologue->stop) ||
      !test_value_within(m, *r->trips, static_cast<std::uint64_t>(r->stages - 1), UINT64_MAX))
    return false;
  r->prologue->stop =
      ExprText{"min(" + std::to_string(r->stages - 1) + ", " + r->trips->name + ")"};
  for (auto& op : m.ops)
    if (auto* a = std::get_if<ModelApply>(&op.body);
        a && a->pred && *a->pred == BoolOrExpr{ExprText{"p < " + r->trips->name}})
      a->pred.reset();
  return true;
}

/// A ring whose prologue commits min(S - 1, n) groups waits with wait_group S - 2, the
/// count of the steady state: right once n >= S - 1, racy for n in 1..S - 2.
bool wait_right_in_steady_state_only(SpecModel& m, Rng&) {
  auto r = ring_of(m);
  if (!r || std::holds_alternative<std::int64_t>(r->prologue->stop) ||
      !test_value_within(m, *r->trips, static_cast<std::uint64_t>(r->stages - 1), UINT64_MAX))
    return false;
  return set_every(parts_of(m).wait_groups, &ModelWaitGroup::n, r->stages - 2);
}

/// A grid-stride loop over a parameter whose iteration reads rows other threads copied
/// (generate_loop then syncs after the wait and at the end, and after a fill; a CTA-scope
/// copy read back by each thread at its own row is no such loop), without the
/// cta_sync that ends the iteration: a CTA's second iteration refills (or fills) its slot
/// while a neighbour may still read it. Racy once a CTA runs two iterations (n > CTAs); the
/// test value is moved to at most the CTAs.
bool grid_stride_no_trailing_sync(SpecModel& m, Rng&) {
  ModelFor* f = loop_named(m, "k");
  ModelParam* n = f ? stop_param(m, *f) : nullptr;
  std::int64_t ctas = 1;
  for (auto g : m.grid)
    ctas *= g;
  if (m.family != Family::loop || !n || !m.has(Feature::grid_stride) || threads_per_cta(m) < 2 ||
      !m.has(Feature::cross_thread_readback) || m.has(Feature::nested_loop) ||
      std::count_if(m.ops.begin(), m.ops.end(),
                    [](const ModelOp& op) { return op.is<ModelCtaSync>(); }) !=
          (has_op<ModelFill>(m) ? 3 : 2) ||
      !test_value_within(m, *n, 0, static_cast<std::uint64_t>(ctas)))
    return false;
  // The last cta_sync before the loop's end.
  for (auto it = m.ops.rbegin(); it != m.ops.rend(); ++it)
    if (it->is<ModelCtaSync>()) {
      m.ops.erase(std::next(it).base());
      return true;
    }
  return false;
}

/// An mbarrier double buffer's wait names parity (k / 4) % 2 for (k / 2) % 2: the two agree
/// for k < 4, so it is racy from n = 3 on; the test value is moved to at most 2.
bool parity_first_uses_only(SpecModel& m, Rng&) {
  ModelFor* f = loop_named(m, "k");
  ModelParam* n = f ? stop_param(m, *f) : nullptr;
  if (!n || !m.has(Feature::mbarrier_ring) || !test_value_within(m, *n, 0, 2))
    return false;
  bool changed = false;
  for (auto& op : m.ops)
    if (auto* w = std::get_if<ModelMbarrierWait>(&op.body);
        w && w->parity == IntOrExpr{ExprText{"(k / 2) % 2"}}) {
      w->parity = ExprText{"(k / 4) % 2"};
      changed = true;
    }
  return changed;
}

// ---- one past the end: each bound a view reaches, overshot by one

ModelTensor* tensor_named(SpecModel& m, std::string_view name) {
  for (auto& t : m.tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

/// Axis `axis` of tensor `name` one shorter (never to 0); the expectations, which name
/// whole tensors, are dropped.
bool one_short(SpecModel& m, std::string_view name, std::size_t axis) {
  ModelTensor* t = tensor_named(m, name);
  if (!t || t->shape.size() <= axis || t->shape[axis] < 2)
    return false;
  --t->shape[axis];
  m.expects.clear();
  return true;
}

/// Every thread copies into its own shared row (a permutation of the threads) at thread
/// scope with no pred: one row fewer puts the last row's writer past the end.
bool shared_row_short(SpecModel& m, Rng&) {
  if ((m.family != Family::tile && m.family != Family::loop) ||
      any_apply(m, [](const ModelApply& a) { return a.scope == ScopeName::cta || a.pred; }))
    return false;
  return one_short(m, "S", 0);
}
/// A ring's slot index reaches S - 1 (every stage is used once the trips reach S, which the
/// range or the constant trip count does): one stage fewer is past the end.
bool ring_stage_short(SpecModel& m, Rng&) {
  const ModelTensor* ring = tensor_named(m, "ring");
  if (!ring || ring->shape.empty())
    return false;
  const std::int64_t stages = ring->shape.front();
  ModelFor* f = loop_named(m, "k");
  std::int64_t top = 0;
  if (f && std::holds_alternative<std::int64_t>(f->stop))
    top = std::get<std::int64_t>(f->stop);
  else if (ModelParam* n = f ? stop_param(m, *f) : nullptr)
    top = static_cast<std::int64_t>((*n->range)[1]);
  return (m.has(Feature::ring_loop) || m.has(Feature::mbarrier_ring)) && top >= stages &&
         one_short(m, "ring", 0);
}
/// The mbarrier double buffer arrives on and waits for both barriers: one barrier fewer
/// puts bar.sub[1] past the end, a constant index the view grammar refuses first (the
/// runtime index bar.sub[(k + 1) % 2] is then not reached).
bool barrier_array_short(SpecModel& m, Rng&) {
  return m.has(Feature::mbarrier_ring) && one_short(m, "bar", 0);
}
/// A loop from 0 by 1 up to the tile count (or a parameter whose range reaches it) writes
/// the output's last tile: one tile fewer is past the end (not for a tensor store, which
/// skips the elements outside its tensor).
bool output_tile_short(SpecModel& m, Rng&) {
  ModelFor* f = loop_named(m, "k");
  const ModelTensor* out = tensor_named(m, "B");
  if (!f || !out || out->shape.size() < 3 || m.has(Feature::loop_step) ||
      m.has(Feature::loop_start_param) || m.has(Feature::pipeline) || has_op<ModelTensorStore>(m))
    return false;
  const std::int64_t tiles = out->shape.front();
  std::int64_t top = 0;
  if (std::holds_alternative<std::int64_t>(f->stop))
    top = std::get<std::int64_t>(f->stop);
  else if (ModelParam* n = stop_param(m, *f))
    top = static_cast<std::int64_t>((*n->range)[1]);
  return top == tiles && one_short(m, "B", 0);
}

// ---- a hazard for each kind of reader: each shared row read by one thread (`tid`), by
// two (`tid / 2`) or by the whole CTA (`0`). The reads are the copy of S back to B; the
// rules rewrite its row and take away the wait (a read of pending bytes) or the barrier
// that ends a loop's iteration (a refill of bytes other threads read).

/// Sets the row of every copy out of the shared tensor S to `row`; false when none. The
/// expectations are dropped: B no longer holds A's rows, and an expectation failing at the
/// test values would end the checks before the values where the hazard shows.
bool read_rows(SpecModel& m, std::string_view row) {
  bool any = false;
  for (auto& op : m.ops)
    if (auto* c = std::get_if<ModelCopy>(&op.body); c && c->src.text.starts_with("S.sub[")) {
      c->src = ViewText{"S.sub[" + std::string(row) + ", :]"};
      any = true;
    }
  if (any)
    m.expects.clear();
  return any;
}

/// One tile copy (no second tensor, no fill, no pred: every copy is issued) whose wait is
/// taken away, read back by the given readers.
bool read_pending_by(SpecModel& m, std::string_view row) {
  if (m.family != Family::tile || tensor_named(m, "S1") || has_op<ModelFill>(m) ||
      any_apply(m, [](const ModelApply& a) { return a.pred.has_value(); }))
    return false;
  return read_rows(m, row) && erase_ops<ModelWaitGroup, ModelWaitAll>(m);
}
bool read_pending_one_thread(SpecModel& m, Rng&) {
  return read_pending_by(m, "tid");
}
bool read_pending_two_threads(SpecModel& m, Rng&) {
  return threads_per_cta(m) >= 2 && read_pending_by(m, "tid / 2");
}
bool read_pending_whole_cta(SpecModel& m, Rng&) {
  return read_pending_by(m, "0");
}

/// A loop from 0 by 1 that may run twice (a parameter's range or the constant reaches 2),
/// read by the given readers after the wait and a cta_sync (the one generate_loop writes
/// for reads of other threads' rows, else one added), with no barrier at the end: the next
/// iteration's copy refills rows the readers may still read.
bool refill_read_by(SpecModel& m, std::string_view row) {
  ModelFor* f = loop_named(m, "k");
  const auto syncs = std::count_if(m.ops.begin(), m.ops.end(),
                                   [](const ModelOp& op) { return op.is<ModelCtaSync>(); });
  if (m.family != Family::loop || !f || threads_per_cta(m) < 2 || m.has(Feature::grid_stride) ||
      m.has(Feature::nested_loop) || m.has(Feature::loop_step) ||
      m.has(Feature::loop_start_param) || has_op<ModelFill>(m) || (syncs != 0 && syncs != 2))
    return false;
  std::int64_t top = 0;
  if (std::holds_alternative<std::int64_t>(f->stop))
    top = std::get<std::int64_t>(f->stop);
  else if (ModelParam* n = stop_param(m, *f))
    top = static_cast<std::int64_t>((*n->range)[1]);
  if (top < 2 || !read_rows(m, row))
    return false;
  if (syncs == 0) {
    const auto wait = std::find_if(m.ops.begin(), m.ops.end(),
                                   [](const ModelOp& op) { return op.is<ModelWaitGroup>(); });
    if (wait == m.ops.end())
      return false;
    m.ops.insert(std::next(wait), ModelOp{ModelCtaSync{}, wait->unit});
    return true;
  }
  for (auto it = m.ops.rbegin(); it != m.ops.rend(); ++it)
    if (it->is<ModelCtaSync>()) {
      m.ops.erase(std::next(it).base());
      return true;
    }
  return false;
}
bool refill_two_threads(SpecModel& m, Rng&) {
  return refill_read_by(m, "tid / 2");
}
bool refill_whole_cta(SpecModel& m, Rng&) {
  return refill_read_by(m, "0");
}

constexpr std::array<MutationRule, 78> rules{{
    {"block 0", DiagId::spec_block_range, block_zero},
    {"block of 2048 threads", DiagId::spec_block_range, block_2048},
    {"grid 0", DiagId::spec_grid_range, grid_zero},
    {"chunk_bytes 12", DiagId::contract_chunk_bytes, chunk_12},
    {"src_size above chunk_bytes", DiagId::contract_src_size_range, src_size_above_chunk},
    {"cache hint qualifier dropped, policy kept", DiagId::contract_policy_without_hint,
     hint_dropped},
    {"cache hint without a policy", DiagId::contract_hint_without_policy, hint_without_policy},
    {"misspelt key chunk_byte", DiagId::spec_unknown_key, misspelt_key},
    {"pred names an unknown parameter", DiagId::expr_unknown_name, pred_unknown_name},
    {"unknown scope", DiagId::spec_unknown_scope, unknown_scope},
    {"unknown dtype", DiagId::spec_unknown_dtype, unknown_dtype_of},
    {"shared tensors beyond every target's limit", DiagId::spec_shared_total_too_large,
     shared_beyond_every_target},
    {"src tensor one row short", DiagId::contract_out_of_bounds, src_row_short},
    {"parameter value above its range", DiagId::spec_param_outside_range, param_above_range},
    {"abi without one parameter", DiagId::spec_abi_missing_name, abi_missing},
    {"abi naming one parameter twice", DiagId::spec_abi_duplicate_name, abi_twice},
    {"wait_group 65", DiagId::contract_wait_group_range, wait_group_65},
    {"no wait before the copies", DiagId::check_read_pending, no_wait},
    {"read back without the barrier", DiagId::check_read_without_sync, no_barrier},
    {"loop without end", DiagId::spec_loop_unclosed, loop_unclosed},
    {"unroll 65", DiagId::spec_loop_unroll_range, unroll_65},
    {"pipeline of 9 stages", DiagId::spec_pipeline_stages, stages_9},
    {"mbarrier count 2^20", DiagId::contract_mbarrier_count_range, mbarrier_count_2_20},
    {"ring prologue without the empty commits (racy for fewer tiles than S - 1)",
     DiagId::check_read_pending, prologue_without_empty_commits},
    {"ring wait count right only in the steady state (racy for fewer tiles than S - 1)",
     DiagId::check_read_pending, wait_right_in_steady_state_only},
    {"grid-stride loop without its trailing cta_sync (racy once a CTA runs 2 iterations)",
     DiagId::check_refill_without_barrier, grid_stride_no_trailing_sync},
    {"mbarrier parity (k / 4) % 2, right for the first uses only (racy from 3 tiles)",
     DiagId::contract_mbarrier_parity, parity_first_uses_only},
    {"shared tensor one row short", DiagId::contract_out_of_bounds, shared_row_short},
    {"ring one stage short", DiagId::contract_out_of_bounds, ring_stage_short},
    {"barrier array one barrier short", DiagId::view_index_range, barrier_array_short},
    {"output tensor one tile short", DiagId::contract_out_of_bounds, output_tile_short},
    {"each row read by one thread, no wait", DiagId::check_read_pending, read_pending_one_thread},
    {"each row read by two threads, no wait", DiagId::check_read_pending, read_pending_two_threads},
    {"row 0 read by the whole CTA, no wait", DiagId::check_read_pending, read_pending_whole_cta},
    {"loop: each row read by two threads, refilled without the trailing cta_sync",
     DiagId::check_refill_without_barrier, refill_two_threads},
    {"loop: row 0 read by the whole CTA, refilled without the trailing cta_sync",
     DiagId::check_refill_without_barrier, refill_whole_cta},
    // The bulk family (mutate_bulk.cpp).
    {"tensor load: innermost coordinate off by half of 16 bytes",
     DiagId::contract_tensor_inner_coord_align, bulk_mutants::unaligned_inner_coord},
    {"tensor store at a negative coordinate", DiagId::contract_tensor_store_negative,
     bulk_mutants::store_negative_coord},
    {"expect_tx 16 bytes above the delivered bytes", DiagId::contract_mbarrier_tx,
     bulk_mutants::expect_tx_plus_16},
    {"bulk store without the final bulk_wait", DiagId::check_bulk_never_waited,
     bulk_mutants::store_never_waited},
    {"refill of the stored tile without the storer's bulk_wait read", DiagId::check_bulk_refill,
     bulk_mutants::refill_without_read_wait},
    {"refill by another thread after the storer's wait, without cta_sync",
     DiagId::check_bulk_wait_scope, bulk_mutants::refill_by_other_thread_without_sync},
    {"swizzled box half its span into a packed shared tile",
     DiagId::contract_tensor_swizzle_padding, bulk_mutants::packed_narrow_swizzle},
    {"two CTAs store the same global bytes", DiagId::check_cross_cta_race,
     bulk_mutants::two_ctas_store_same_bytes},
    {"bulk store of filled bytes without the proxy fence", DiagId::check_proxy_fence_missing,
     bulk_mutants::store_without_proxy_fence},
    {"fill before a load of the same bytes without the proxy fence", DiagId::check_proxy_fence_load,
     bulk_mutants::load_fill_without_fence},
    {"fill before a load, its proxy fence of the global space only", DiagId::check_proxy_fence_load,
     bulk_mutants::load_fill_fence_global_only},
    {"global writes before a bulk load of them without the proxy fence",
     DiagId::check_proxy_fence_global, bulk_mutants::global_write_without_fence},
    {"global writes before a bulk load, their proxy fence of shared::cta only",
     DiagId::check_proxy_fence_global, bulk_mutants::global_fence_shared_only},
    {"read-back of a bulk store's bytes after the storer's wait, without cta_sync",
     DiagId::check_bulk_wait_scope, bulk_mutants::readback_without_sync},
    {"copy into a pending bulk store's global bytes", DiagId::check_bulk_global_write_race,
     bulk_mutants::copy_over_pending_store},
    {"refill after a bulk_wait read of one group more", DiagId::check_bulk_refill,
     bulk_mutants::read_wait_one_group_looser},
    {"bulk loop: wait parity 0 in every iteration", DiagId::contract_mbarrier_parity,
     bulk_mutants::loop_parity_constant},
    {"TMA pipeline: full barrier without the stage", DiagId::spec_pipeline_ring_barrier,
     bulk_mutants::ring_full_without_stage},
    {"TMA pipeline: ring_offset of a whole lap with fresh barriers",
     DiagId::contract_mbarrier_count, bulk_mutants::ring_offset_lap_ahead},
    {"TMA pipeline: each stage loads the next tile", DiagId::contract_out_of_bounds,
     bulk_mutants::ring_load_next_tile},
    // The cluster family (mutate_cluster.cpp).
    {"multicast mask naming the rank past the cluster", DiagId::contract_multicast_mask,
     cluster_mutants::multicast_mask_outside},
    {"multicast without the barriers' mbarrier_init_fence", DiagId::contract_multicast_init,
     cluster_mutants::multicast_without_init_fence},
    {"multicast: expect_tx on one CTA's barrier only", DiagId::contract_multicast_expect_tx,
     cluster_mutants::multicast_expect_tx_rank_0},
    {"multicast without the closing cluster_sync", DiagId::contract_multicast_exit,
     cluster_mutants::multicast_without_exit_sync},
    {"peer view's rank one more (the last rank names rank C)", DiagId::contract_peer_rank,
     cluster_mutants::peer_rank_plus_1},
    {"DSMEM write and a peer's read without the cluster_sync between",
     DiagId::check_cluster_shared_race, cluster_mutants::dsmem_without_sync},
    {"peer access without the closing cluster_sync", DiagId::contract_peer_exit,
     cluster_mutants::peer_access_without_exit_sync},
    {"DSMEM: the cluster_sync between a write and a peer's read relaxed",
     DiagId::check_cluster_shared_race, cluster_mutants::dsmem_sync_relaxed},
    {"peer access followed by a relaxed closing cluster_sync only", DiagId::contract_peer_exit,
     cluster_mutants::peer_exit_sync_relaxed},
    {"bulk_copy_peer without the barriers' mbarrier_init_fence", DiagId::contract_peer_copy_init,
     cluster_mutants::peer_copy_without_init_fence},
    {"bulk_copy_peer: expect_tx on rank 0's barrier only", DiagId::contract_peer_copy_expect_tx,
     cluster_mutants::peer_copy_expect_tx_rank_0},
    {"bulk_copy_peer: no receiver waits for the copy", DiagId::contract_peer_copy_exit,
     cluster_mutants::peer_copy_never_waited},
    {"bulk_copy_peer: source rewritten after the sender's own wait", DiagId::check_peer_copy_refill,
     cluster_mutants::peer_copy_source_rewritten},
    {"remote arrivals without the barriers' mbarrier_init_fence",
     DiagId::contract_remote_arrive_init, cluster_mutants::remote_arrive_without_init_fence},
    {"multicast ring: the empty count covering the local consumers only",
     DiagId::contract_multicast_refill, cluster_mutants::ring_local_empty},
    {"multicast ring: the consumers arriving on their own CTA's empty only",
     DiagId::contract_multicast_refill, cluster_mutants::ring_own_empty_only},
    {"multicast ring: one receiving CTA's arrivals dropped, the empty count one less",
     DiagId::contract_multicast_refill, cluster_mutants::ring_one_cta_dropped},
    {"multicast ring: one receiving CTA's arrivals dropped, the empty count kept",
     DiagId::contract_mbarrier_count, cluster_mutants::ring_one_cta_dropped_count_kept},
    {"multicast ring: the refill issued before the empty wait", DiagId::contract_multicast_refill,
     cluster_mutants::ring_refill_before_empty_wait},
    {"multicast ring: the consumers' arrival before their cta_sync",
     DiagId::contract_multicast_refill, cluster_mutants::ring_arrive_before_cta_sync},
    {"multicast ring: the empty count one, the remote arrivals kept",
     DiagId::contract_mbarrier_count, cluster_mutants::ring_empty_count_one},
    {"multicast ring: a group's mask widened to the whole cluster", DiagId::contract_mbarrier_tx,
     cluster_mutants::ring_part_mask_whole_cluster},
}};

} // namespace

std::span<const MutationRule> mutation_rules() {
  return rules;
}

std::vector<Mutant> mutants(const SpecModel& m, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Mutant> out;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const MutationRule& r = rules[i];
    SpecModel s = m;
    if (!r.edit(s, rng))
      continue;
    std::string toml = to_toml(s);
    out.push_back(Mutant{std::string(r.what), std::move(s), std::move(toml), r.refused_with, i});
  }
  return out;
}

} // namespace ptxgen::driver::fuzz
