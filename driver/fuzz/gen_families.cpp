// The generator's families: each builds a valid spec from the builder's random numbers.

#include "driver/fuzz/gen_build.hpp"

#include <algorithm>

namespace ptxgen::driver::fuzz {

namespace {

/// The byte budget of a tensor: threads x CTAs x tiles rows of at least one 16-byte chunk.
std::int64_t max_threads_for(const Builder& b, std::int64_t tiles) {
  return std::max<std::int64_t>(warp_size, b.opt.max_tensor_bytes / (cg_chunk * tiles));
}

std::int64_t ctas_for(Builder& b, std::int64_t threads, std::int64_t tiles) {
  const std::int64_t fit = b.opt.max_tensor_bytes / (cg_chunk * tiles * threads);
  return b.rng.edge(1, std::max<std::int64_t>(1, std::min(b.opt.max_ctas, fit)));
}

/// One tile copy's tensors and apply: A (global) -> S (shared) -> B (global output).
struct Piece {
  RowCopy r;
  ApplyExtras x;
  std::string a, s, out;
  bool fill = false;
};

Piece make_piece(Builder& b, const std::string& suffix, std::int64_t tiles, std::int64_t row_ctas,
                 const std::string& loop_var, std::int64_t ring, bool allow_pred,
                 bool cross_read = false) {
  Piece p;
  p.r = pick_rows(b, true, tiles, row_ctas, std::max<std::int64_t>(ring, 1), cross_read);
  p.a = "A" + suffix;
  p.s = (ring ? "ring" : "S") + suffix;
  p.out = "B" + suffix;
  const std::int64_t T = b.threads();
  std::vector<std::int64_t> lead;
  if (tiles > 1 || !loop_var.empty())
    lead.push_back(tiles);
  auto shape = [&](std::vector<std::int64_t> front, std::int64_t rows, std::int64_t cols) {
    front.push_back(rows);
    front.push_back(cols);
    return front;
  };
  std::vector<std::int64_t> a_shape = shape(lead, row_ctas * T, p.r.src_cols);
  if (p.r.src_split > 1) {
    a_shape.back() /= p.r.src_split;
    a_shape.insert(a_shape.end() - 1, p.r.src_split);
  }
  auto& a = b.tensor(p.a, false, a_shape, p.r.src_dtype);
  a.init = b.init_for(a.dtype);
  auto& out = b.tensor(p.out, false, shape(lead, row_ctas * T, p.r.row_bytes() / p.r.dst_decl_es),
                       b.dtype(p.r.dst_decl_es));
  out.output = true;
  if (b.rng.chance(1, 3))
    out.init = b.init_for(out.dtype);
  auto& s = b.tensor(p.s, true,
                     shape(ring ? std::vector<std::int64_t>{ring} : std::vector<std::int64_t>{}, T,
                           p.r.row_bytes() / p.r.dst_decl_es),
                     p.r.dst_dtype);
  if (b.rng.chance(1, 6)) {
    s.align = std::int64_t{256} << (2 * b.rng.below(3));
    b.use(Feature::shared_align);
  }
  if (!loop_var.empty())
    p.r.lead_src = {loop_var};
  ApplyContext ctx;
  ctx.rows = &p.r;
  ctx.loop_var = loop_var;
  ctx.loop_trips = tiles;
  ctx.allow_pred = allow_pred;
  p.x = apply_extras(b, ctx);
  p.fill = p.x.needs_fill || (allow_pred && b.rng.chance(1, 6));
  return p;
}

ModelApply apply_of(Builder& b, const Piece& p, std::int64_t ctas_in_rows) {
  const std::int64_t T = b.threads();
  ModelApply a = p.x.apply;
  a.dst = p.r.dst_view(p.s, T);
  a.src = p.r.src_view(p.a, T, ctas_in_rows);
  a.chunk_bytes = p.r.chunk;
  return a;
}

std::vector<std::string> piece_names(const Piece& p) {
  std::vector<std::string> n{p.a, p.s, p.out};
  n.insert(n.end(), p.x.names.begin(), p.x.names.end());
  n.insert(n.end(), p.r.names.begin(), p.r.names.end());
  return n;
}

/// The shared row a thread fills before its apply (all the rows it will copy into).
ModelFill fill_of(Rng& rng, const Piece& p, const std::vector<std::string>& lead) {
  std::string idx;
  for (const auto& l : lead)
    idx += l + ", ";
  return ModelFill{ViewText{p.s + ".sub[" + idx + (p.r.cta_scope ? "tid" : p.r.dst_row) + ", :]"},
                   fill_pattern(rng)};
}

/// The copy of the shared row a thread reads back (`lead`: the stage) to its output row.
ModelCopy copy_of(Builder& b, const Piece& p, std::int64_t row_ctas, const std::string& k,
                  const std::string& lead) {
  return ModelCopy{
      ViewText{p.out + ".sub[" + (k.empty() ? "" : k + ", ") +
               global_row(b.threads(), row_ctas, "tid") + ", :]"},
      ViewText{p.s + ".sub[" + (lead.empty() ? "" : lead + ", ") + p.r.read_row + ", :]"}};
}

/// True when B ends up a bit copy of A (every row, every byte).
bool identity(const Piece& p) {
  return p.x.exact && p.r.src_linear() && !p.r.cross() && p.r.slice_lo == 0 &&
         p.r.src_row_bytes == p.r.row_bytes();
}

/// True when every chunk is zero filled: ignore_src = true and no pred.
bool ignores_all(const Piece& p) {
  const auto& ignore = p.x.apply.ignore_src;
  return ignore && *ignore == BoolOrExpr{true} && !p.x.apply.pred;
}

/// Expectations of a tile copy over `tiles` tiles of which `trips` run: when B is a bit
/// copy of A, B == A (every tile ran) or the tiles that ran equal and the rest untouched.
/// `trips_param`: the parameter the trip count is ("" for a constant), which the regions
/// then name, so that they hold at every value of its range (`B.sub[0:n] == A.sub[0:n]`).
void tile_expectations(Builder& b, const Piece& p, std::int64_t tiles, std::int64_t trips,
                       const std::string& trips_param = {}) {
  if (!b.opt.expectations || trips < 0)
    return;
  const std::size_t before = b.m.expects.size();
  const bool rows = p.r.src_split == 1 && p.r.src_dtype.bytes == p.r.dst_decl_es;
  if (!trips_param.empty()) {
    const std::string& n = trips_param;
    if (rows && (identity(p) || ignores_all(p))) {
      b.m.expects.push_back(p.out + ".sub[0:" + n +
                            "] == " + (identity(p) ? p.a + ".sub[0:" + n + "]" : std::string("0")));
      b.m.expects.push_back(p.out + ".sub[" + n + ":] == sentinel");
      b.use(Feature::expect);
    }
    return;
  }
  if (ignores_all(p) && trips == tiles) {
    b.m.expects.push_back(p.out + " == 0");
    b.use(Feature::expect_zero);
  } else if (!identity(p)) {
    return;
  } else if (trips == tiles) {
    b.m.expects.push_back(p.out + " == " + p.a);
  } else if (rows) {
    const std::string t = std::to_string(trips);
    if (trips > 0)
      b.m.expects.push_back(p.out + ".sub[0:" + t + "] == " + p.a + ".sub[0:" + t + "]");
    b.m.expects.push_back(p.out + ".sub[" + t + ":] == sentinel");
  }
  if (b.m.expects.size() > before)
    b.use(Feature::expect);
}

/// The parameter a loop's stop is when its trip count is one, else "".
std::string runtime_stop(const ModelFor& f) {
  const auto* e = std::get_if<ExprText>(&f.stop);
  return e ? e->text : std::string();
}

/// Some shared padding in front of the tensors, to push the layout past 48 KiB.
void maybe_pad(Builder& b) {
  if (!b.rng.chance(1, 5))
    return;
  const std::int64_t used = b.shared_bytes();
  const std::int64_t lo = std::max<std::int64_t>(16, static_shared_limit - used + 1);
  const std::int64_t hi = std::min(b.opt.max_tensor_bytes, b.opt.max_shared_bytes - used - 8192);
  if (lo > hi)
    return;
  ModelTensor pad;
  pad.name = "pad";
  pad.shared = true;
  pad.shape = {b.rng.edge(lo, hi)};
  pad.dtype = byte_dtype;
  b.m.tensors.insert(b.m.tensors.begin(), pad);
  b.unit({"pad"});
}

void finish(Builder& b) {
  if (b.shared_bytes() > static_shared_limit)
    b.use(Feature::dynamic_shared);
  // Sometimes the parameter order of the entry is given ([kernel] abi), shuffled.
  if (b.rng.chance(1, 5)) {
    std::vector<std::string> abi;
    for (const auto& t : b.m.tensors)
      if (!t.shared)
        abi.push_back(t.name);
    for (const auto& p : b.m.params)
      abi.push_back(p.name);
    for (std::size_t i = abi.size(); i > 1; --i)
      std::swap(abi[i - 1], abi[b.rng.below(i)]);
    b.m.abi = abi;
    b.use(Feature::abi_order);
  }
  b.m.name = std::string(name(b.m.family)) + "_" + std::to_string(b.m.seed);
}

/// What a loop's header may vary besides its trip count.
struct LoopFreedom {
  bool start = false; ///< a start from a parameter (a per-CTA range of tiles)
  bool step = false;  ///< a step of 2
};

/// `trips` comes back as the number of tiles 0.. the loop runs, or -1 when it does not
/// run a prefix of the tiles (a start or step other than 0 and 1).
ModelFor loop_header(Builder& b, std::int64_t tiles, bool grid_stride, std::int64_t& trips,
                     std::vector<std::string>& names, LoopFreedom freedom = {}) {
  ModelFor f;
  f.var = "k";
  const bool start_param = freedom.start && !grid_stride && b.rng.chance(1, 4);
  f.start = grid_stride ? IntOrExpr{ExprText{"bid"}} : IntOrExpr{std::int64_t{0}};
  if (start_param) {
    const std::string n = b.param_u32(0, tiles - 1);
    names.push_back(n);
    f.start = ExprText{n};
    b.use(Feature::loop_start_param);
  }
  trips = tiles;
  // A grid stride's trip count is a parameter 3 times in 4: its range then holds values
  // where a CTA runs one iteration and values where it runs several.
  if (grid_stride ? b.rng.chance(3, 4) : b.rng.chance(1, 2)) {
    const std::string n = b.param_u32(1, tiles);
    trips = static_cast<std::int64_t>(b.m.params.back().value);
    names.push_back(n);
    f.stop = ExprText{n};
    b.use(Feature::runtime_trips);
  } else {
    f.stop = tiles;
  }
  if (grid_stride) {
    f.step = ExprText{"nbid"};
    b.use(Feature::grid_stride);
  } else if (freedom.step && b.rng.chance(1, 5)) {
    f.step = std::int64_t{2};
    b.use(Feature::loop_step);
    trips = -1;
  }
  if (start_param)
    trips = -1;
  if (b.rng.chance(1, 3)) {
    f.unroll = b.rng.edge(2, 4);
    b.use(Feature::unroll);
  }
  return f;
}

/// Sometimes an outer `for j` around a family's loop: it repeats the same work, so the
/// result (and the expectations) stay the same. Returns whether it opened one.
bool maybe_outer_loop(Builder& b, std::size_t unit) {
  if (!b.rng.chance(1, 5))
    return false;
  b.use(Feature::nested_loop);
  ModelFor j;
  j.var = "j";
  j.stop = b.rng.edge(1, 3);
  b.op(unit, j);
  return true;
}

} // namespace

void generate_tile(Builder& b) {
  b.m.family = Family::tile;
  const std::int64_t T = pick_threads(b.rng, max_threads_for(b, 1), false);
  b.launch(T, ctas_for(b, T, 1));
  const std::int64_t G = b.ctas();
  std::vector<Piece> pieces;
  pieces.push_back(make_piece(b, "", 1, G, "", 0, true));
  if (b.rng.chance(1, 4))
    pieces.push_back(make_piece(b, "1", 1, G, "", 0, true));
  maybe_pad(b);
  for (const auto& p : pieces)
    if (p.fill) {
      b.use(Feature::fill_sentinel);
      b.op(b.unit({p.s}), fill_of(b.rng, p, {}));
      b.op(b.unit({}), ModelCtaSync{});
    }
  const bool two_groups = pieces.size() == 2 && b.rng.chance(1, 2);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    b.op(b.unit(piece_names(pieces[i])), apply_of(b, pieces[i], G));
    if (two_groups || i + 1 == pieces.size())
      b.op(b.unit({}), ModelCommitGroup{});
  }
  auto wait = [&](std::int64_t n) {
    if (n == 0 && b.rng.chance(1, 4)) {
      b.use(Feature::wait_all);
      b.op(b.unit({}), ModelWaitAll{});
    } else {
      b.op(b.unit({}), ModelWaitGroup{n});
    }
    b.op(b.unit({}), ModelCtaSync{});
  };
  wait(two_groups ? 1 : 0);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (two_groups && i == 1) {
      b.use(Feature::two_groups);
      wait(0);
    }
    const auto& p = pieces[i];
    b.op(b.unit({p.s, p.out}), copy_of(b, p, G, "", ""));
  }
  for (const auto& p : pieces)
    tile_expectations(b, p, 1, 1);
  finish(b);
}

void generate_loop(Builder& b) {
  b.m.family = Family::loop;
  b.use(Feature::for_loop);
  const std::int64_t tiles = b.rng.edge(1, b.opt.max_tiles);
  const std::int64_t T = pick_threads(b.rng, max_threads_for(b, tiles), false);
  const bool grid_stride = b.rng.chance(1, 3);
  b.launch(T, ctas_for(b, T, grid_stride ? 1 : tiles));
  const std::int64_t G = b.ctas();
  const std::int64_t row_ctas = grid_stride ? 1 : G;
  // A grid stride reads rows other threads copied half the time, so that the barrier that
  // ends each iteration matters (a CTA's next iteration refills what a neighbour reads).
  Piece p = make_piece(b, "", tiles, row_ctas, "k", 0, true, grid_stride && b.rng.chance(1, 2));
  maybe_pad(b);
  std::vector<std::string> names = piece_names(p);
  std::int64_t trips = 0;
  auto header = loop_header(b, tiles, grid_stride, trips, names, LoopFreedom{true, true});
  const std::size_t u = b.unit(names);
  const bool outer = maybe_outer_loop(b, u);
  b.op(u, header);
  const bool cross = p.r.cross() || p.r.cta_scope;
  if (p.fill) {
    b.use(Feature::fill_sentinel);
    b.op(u, fill_of(b.rng, p, {}));
    b.op(u, ModelCtaSync{});
  }
  b.op(u, apply_of(b, p, row_ctas));
  b.op(u, ModelCommitGroup{});
  b.op(u, ModelWaitGroup{0});
  if (cross)
    b.op(u, ModelCtaSync{});
  b.op(u, copy_of(b, p, row_ctas, "k", ""));
  if (cross || p.fill)
    b.op(u, ModelCtaSync{});
  b.op(u, ModelEnd{});
  if (outer)
    b.op(u, ModelEnd{});
  tile_expectations(b, p, tiles, trips, runtime_stop(header));
  finish(b);
}

namespace {

/// The pipeline written out by hand (specs/races/ring_prologue_min.toml when correct): an
/// S-stage ring over a runtime number of tiles n, declared in [1, tiles] with tiles > S so
/// that 1, S - 1, S, S + 1 and the top are all in the range. Either the prologue commits
/// S - 1 groups, empty ones past n (pred `p < n`), and the steady state waits with
/// wait_group S - 2; or it commits only min(S - 1, n) groups and every iteration waits for
/// all (wait_group 0). Each iteration waits, syncs (the slot it refills was read in the
/// previous iteration), refills slot (k + S - 1) % S and reads slot k % S.
void generate_ring_loop(Builder& b) {
  b.use(Feature::ring_loop);
  b.use(Feature::for_loop);
  b.use(Feature::runtime_trips);
  b.use(Feature::pred_expr);
  const std::int64_t S = b.rng.edge(2, 6);
  const std::int64_t tiles = b.rng.edge(S + 1, std::max(S + 1, b.opt.max_tiles));
  const std::int64_t T = pick_threads(b.rng, max_threads_for(b, tiles), false);
  b.launch(T, ctas_for(b, T, tiles));
  const std::int64_t G = b.ctas();
  Piece p = make_piece(b, "", tiles, G, "", S, false);
  maybe_pad(b);
  std::vector<std::string> names = piece_names(p);
  const std::string n = b.param_u32(1, tiles);
  names.push_back(n);
  const auto trips = static_cast<std::int64_t>(b.m.params.back().value);
  const bool min_prologue = b.rng.chance(1, 3);
  const std::size_t u = b.unit(names);
  const std::string ahead = std::to_string(S - 1), last = std::to_string(tiles - 1);
  auto load = [&](const std::string& tile, const std::string& slot, std::optional<ExprText> pred) {
    Piece q = p;
    q.r.lead_src = {tile};
    q.r.lead_dst = {slot};
    ModelApply a = apply_of(b, q, G);
    a.pred = std::move(pred);
    b.op(u, std::move(a));
    b.op(u, ModelCommitGroup{});
  };
  ModelFor prologue;
  prologue.var = "p";
  if (min_prologue) {
    b.use(Feature::ring_min_prologue);
    prologue.stop = ExprText{"min(" + ahead + ", " + n + ")"};
  } else {
    prologue.stop = S - 1;
  }
  b.op(u, prologue);
  load("p", "p", min_prologue ? std::nullopt : std::optional(ExprText{"p < " + n}));
  b.op(u, ModelEnd{});
  ModelFor loop;
  loop.var = "k";
  loop.stop = ExprText{n};
  b.op(u, loop);
  b.op(u, ModelWaitGroup{min_prologue ? 0 : S - 2});
  b.op(u, ModelCtaSync{});
  load("min(k + " + ahead + ", " + last + ")", "(k + " + ahead + ") % " + std::to_string(S),
       ExprText{"k + " + ahead + " < " + n});
  b.op(u, copy_of(b, p, G, "k", "k % " + std::to_string(S)));
  b.op(u, ModelEnd{});
  tile_expectations(b, p, tiles, trips, n);
}

} // namespace

void generate_pipeline(Builder& b) {
  b.m.family = Family::pipeline;
  if (b.rng.chance(1, 3)) {
    generate_ring_loop(b);
    finish(b);
    return;
  }
  b.use(Feature::pipeline);
  const std::int64_t stages = b.rng.edge(2, 8);
  // Half the time past the stages, so that a runtime trip count's range [1, tiles] holds
  // 1, S - 1, S and S + 1; else anywhere (fewer tiles than stages included).
  const std::int64_t tiles =
      b.rng.chance(1, 2) ? b.rng.edge(std::min(stages + 1, b.opt.max_tiles), b.opt.max_tiles)
                         : b.rng.edge(1, b.opt.max_tiles);
  const std::int64_t T = pick_threads(b.rng, max_threads_for(b, std::max(tiles, stages)), false);
  b.launch(T, ctas_for(b, T, std::max(tiles, stages)));
  const std::int64_t G = b.ctas();
  const std::string stage_var = b.rng.chance(1, 5) ? "slot" : "stage";
  std::vector<Piece> pieces{make_piece(b, "", tiles, G, "k", stages, false)};
  if (b.rng.chance(1, 4)) {
    pieces.push_back(make_piece(b, "1", tiles, G, "k", stages, false));
    b.use(Feature::pipeline_two_loads);
  }
  std::vector<std::string> names;
  for (auto& p : pieces) {
    p.r.lead_dst = {stage_var};
    const auto n = piece_names(p);
    names.insert(names.end(), n.begin(), n.end());
  }
  maybe_pad(b);
  std::int64_t trips = 0;
  ModelPipeline pipe;
  pipe.loop = loop_header(b, tiles, false, trips, names, LoopFreedom{true, false});
  if (trips >= 0 && trips < stages)
    b.use(Feature::trips_below_stages);
  pipe.stages = stages;
  if (stage_var != "stage")
    pipe.stage_var = stage_var;
  const std::size_t u = b.unit(names);
  for (const auto& p : pieces)
    pipe.loads.push_back(apply_of(b, p, G));
  for (const auto& p : pieces) {
    pipe.body.emplace_back(copy_of(b, p, G, "k", stage_var));
    // A consumer may also write its own row of the stage it consumed (a sentinel for the
    // next refill): no other thread reads that row when the readback is the thread's own.
    if (!p.r.cross() && !p.r.cta_scope && b.rng.chance(1, 4)) {
      pipe.body.emplace_back(fill_of(b.rng, p, {stage_var}));
      b.use(Feature::pipeline_body_fill);
    }
  }
  const bool outer = maybe_outer_loop(b, u);
  const std::string trips_param = runtime_stop(pipe.loop);
  b.op(u, std::move(pipe));
  if (outer)
    b.op(u, ModelEnd{});
  for (const auto& p : pieces)
    tile_expectations(b, p, tiles, trips, trips_param);
  finish(b);
}

namespace {

/// The mbarrier double buffer (specs/mbarrier/double_buffer.toml): tile 0 before the loop,
/// then iteration k loads tile k + 1 into the other slot (off after the last tile, its index
/// clamped) and arrives on that slot's barrier, waits for slot k % 2's phase (k / 2) % 2,
/// reads it and ends with a cta_sync before the slot is refilled.
void mbarrier_ring(Builder& b) {
  b.use(Feature::mbarrier_ring);
  b.use(Feature::for_loop);
  const std::int64_t tiles = b.rng.edge(2, b.opt.max_tiles);
  const std::int64_t T = pick_threads(b.rng, max_threads_for(b, tiles), false);
  b.launch(T, ctas_for(b, T, tiles));
  const std::int64_t G = b.ctas();
  Piece p = make_piece(b, "", tiles, G, "", 2, false);
  b.tensor("bar", true, {2}, barrier_dtype);
  const bool noinc = b.rng.chance(1, 3);
  if (noinc)
    b.use(Feature::mbarrier_noinc);
  maybe_pad(b);
  const std::size_t init = b.unit({"bar"});
  for (const char* slot : {"0", "1"})
    b.op(init,
         ModelMbarrierInit{ViewText{std::string("bar.sub[") + slot + "]"}, noinc ? 2 * T : T});
  b.op(init, ModelCtaSync{});
  std::vector<std::string> names = piece_names(p);
  names.push_back("bar");
  const std::string last = std::to_string(tiles - 1);
  // Half the time a runtime trip count in [1, tiles]: the parity's phases then vary with it.
  std::string stop = std::to_string(tiles);
  std::int64_t trips = tiles;
  const bool runtime = b.rng.chance(1, 2);
  if (runtime) {
    stop = b.param_u32(1, tiles);
    trips = static_cast<std::int64_t>(b.m.params.back().value);
    names.push_back(stop);
    b.use(Feature::runtime_trips);
  }
  const std::size_t u = b.unit(names);
  auto load = [&](const std::string& tile, const std::string& slot, bool pred) {
    Piece q = p;
    q.r.lead_src = {tile};
    q.r.lead_dst = {slot};
    ModelApply a = apply_of(b, q, G);
    if (pred)
      a.pred = ExprText{"k + 1 < " + stop};
    b.op(u, std::move(a));
    const ViewText bar{"bar.sub[" + slot + "]"};
    b.op(u, ModelCopyArrive{bar, noinc});
    b.op(u, ModelMbarrierArrive{bar});
  };
  load("0", "0", false);
  ModelFor loop;
  loop.var = "k";
  loop.stop = runtime ? IntOrExpr{ExprText{stop}} : IntOrExpr{tiles};
  b.op(u, loop);
  load("min(k + 1, " + last + ")", "(k + 1) % 2", true);
  b.op(u, ModelMbarrierWait{ViewText{"bar.sub[k % 2]"}, ExprText{"(k / 2) % 2"}});
  b.op(u, copy_of(b, p, G, "k", "k % 2"));
  b.op(u, ModelCtaSync{});
  b.op(u, ModelEnd{});
  tile_expectations(b, p, tiles, trips, runtime ? stop : std::string());
}

} // namespace

void generate_mbarrier(Builder& b) {
  b.m.family = Family::mbarrier;
  b.use(Feature::mbarrier);
  if (b.rng.chance(1, 3)) {
    mbarrier_ring(b);
    finish(b);
    return;
  }
  const bool loop = b.rng.chance(1, 2);
  const std::int64_t tiles = loop ? b.rng.edge(1, b.opt.max_tiles) : 1;
  const std::int64_t T = pick_threads(b.rng, max_threads_for(b, tiles), false);
  b.launch(T, ctas_for(b, T, tiles));
  const std::int64_t G = b.ctas();
  Piece p = make_piece(b, "", tiles, G, loop ? "k" : "", 0, false);
  const std::int64_t nbar = b.rng.edge(1, 2);
  b.tensor("bar", true, {nbar}, barrier_dtype);
  const ViewText bar{"bar.sub[" + std::to_string(b.rng.below(nbar)) + "]"};
  // normal: count = T, each thread copy_arrive + arrive; 1: noinc and a doubled count;
  // 2: noinc only (the deferred arrivals are the count).
  const auto mode = b.rng.below(3);
  if (mode)
    b.use(Feature::mbarrier_noinc);
  const std::int64_t count = mode == 1 ? 2 * T : T;
  maybe_pad(b);
  const std::size_t init = b.unit({"bar"});
  b.op(init, ModelMbarrierInit{bar, count});
  b.op(init, ModelCtaSync{});
  std::vector<std::string> names = piece_names(p);
  names.push_back("bar");
  std::int64_t trips = tiles;
  ModelFor header;
  if (loop) {
    b.use(Feature::for_loop);
    header = loop_header(b, tiles, false, trips, names);
  }
  const std::size_t u = b.unit(names);
  if (loop)
    b.op(u, header);
  b.op(u, apply_of(b, p, G));
  b.op(u, ModelCopyArrive{bar, mode != 0});
  if (mode != 2)
    b.op(u, ModelMbarrierArrive{bar});
  b.op(u, ModelMbarrierWait{bar, loop ? IntOrExpr{ExprText{"k % 2"}} : IntOrExpr{std::int64_t{0}}});
  b.op(u, copy_of(b, p, G, loop ? "k" : "", ""));
  if (loop) {
    b.op(u, ModelCtaSync{});
    b.op(u, ModelEnd{});
  }
  tile_expectations(b, p, tiles, trips, loop ? runtime_stop(header) : std::string());
  finish(b);
}

SpecModel generate(std::uint64_t seed, const GenOptions& options) {
  Builder b(seed, options);
  std::vector<Family> on;
  for (std::size_t i = 0; i < family_count; ++i)
    if (options.families[i])
      on.push_back(static_cast<Family>(i));
  if (on.empty())
    on.push_back(Family::tile);
  // The tile family is the richest in apply shapes: draw it twice as often.
  std::vector<Family> weighted = on;
  if (options.families[0])
    weighted.push_back(Family::tile);
  switch (b.rng.pick(weighted)) {
  case Family::tile:
    generate_tile(b);
    break;
  case Family::loop:
    generate_loop(b);
    break;
  case Family::pipeline:
    generate_pipeline(b);
    break;
  case Family::mbarrier:
    generate_mbarrier(b);
    break;
  case Family::bulk:
    generate_bulk(b);
    break;
  case Family::cluster:
    generate_cluster(b);
    break;
  }
  return std::move(b.m);
}

} // namespace ptxgen::driver::fuzz
