// The generator's builder, row layouts and apply extras (see gen_build.hpp).

#include "driver/fuzz/gen_build.hpp"

#include "emitter/tile/dtype.hpp"

#include <algorithm>
#include <array>
#include <functional>

namespace ptxgen::driver::fuzz {

namespace {

/// The dtype spellings the generator writes, in the order its choices index them (a seed's
/// spec depends on it); their sizes, and which are aliases, are tile::parse_dtype's.
constexpr std::array<std::string_view, 28> dtype_spellings{
    "uint8",   "int8",     "b8",  "u8",  "s8",   "uint16", "int16",
    "float16", "bfloat16", "b16", "f16", "bf16", "half",   "uint32",
    "int32",   "float32",  "b32", "u32", "f32",  "float",  "uint64",
    "int64",   "float64",  "b64", "u64", "i64",  "f64",    "double",
};

/// Whether `spelling` is an alias of a dtype rather than its name.
bool dtype_alias(std::string_view spelling, tile::DType t) {
  return tile::name(t) != spelling;
}

/// Policies as ptxgen's cache_hint specs pass them (createpolicy results seen on sm_80+).
constexpr std::array<std::uint64_t, 2> policy_values{0x14F0000000000000ull, 0x12F0000000000000ull};
constexpr std::array<std::string_view, 4> primaries{"evict_last", "evict_normal", "evict_first",
                                                    "evict_unchanged"};
constexpr std::array<std::string_view, 2> secondaries{"evict_first", "evict_unchanged"};
constexpr std::array<std::string_view, 4> fractions{"0.25", "0.5", "0.75", "1.0"};
constexpr std::array<std::int64_t, 3> ca_chunks{4, 8, 16};

std::vector<std::int64_t> divisors(std::int64_t n, std::int64_t max) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i <= n && i <= max; ++i)
    if (n % i == 0)
      d.push_back(i);
  return d;
}

bool power_of_two(std::int64_t n) {
  return n > 0 && (n & (n - 1)) == 0;
}

std::string paren(const std::string& s) {
  return s.find_first_of(" ") == std::string::npos ? s : "(" + s + ")";
}

} // namespace

Builder::Builder(std::uint64_t seed, const GenOptions& options) : rng(seed), opt(options) {
  m.seed = seed;
}

void Builder::use(Feature f) {
  if (!m.has(f))
    m.features.push_back(f);
}

std::size_t Builder::unit(std::vector<std::string> names) {
  m.units.push_back(ModelUnit{std::move(names)});
  return m.units.size() - 1;
}

void Builder::op(std::size_t unit, ModelOpBody body) {
  m.ops.push_back(ModelOp{std::move(body), unit});
}

ModelTensor& Builder::tensor(std::string name, bool shared, std::vector<std::int64_t> shape,
                             ModelDtype dtype) {
  ModelTensor t;
  t.name = std::move(name);
  t.shared = shared;
  t.shape = std::move(shape);
  t.dtype = dtype;
  m.tensors.push_back(std::move(t));
  return m.tensors.back();
}

std::string Builder::param_u32(std::int64_t lo, std::int64_t hi) {
  ModelParam p;
  p.name = "n" + std::to_string(params_++);
  p.value = static_cast<std::uint64_t>(rng.edge(lo, hi));
  p.range =
      std::array<std::uint64_t, 2>{static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi)};
  m.params.push_back(p);
  use(Feature::param_range);
  return p.name;
}

std::string Builder::param_u64(std::uint64_t value) {
  ModelParam p;
  p.name = "policy" + std::to_string(params_++);
  p.u64 = true;
  p.value = value;
  m.params.push_back(p);
  return p.name;
}

ModelDtype Builder::dtype(std::int64_t bytes) {
  std::vector<std::string_view> fit;
  for (const std::string_view d : dtype_spellings) {
    const tile::DType t = *tile::parse_dtype(d);
    if (tile::size_bytes(t) == bytes && (!dtype_alias(d, t) || rng.chance(1, 3)))
      fit.push_back(d);
  }
  const std::string_view d = rng.pick(fit);
  const tile::DType t = *tile::parse_dtype(d);
  if (dtype_alias(d, t))
    use(Feature::dtype_alias);
  return ModelDtype{d, tile::size_bytes(t)};
}

tile::TensorInit Builder::init_for(ModelDtype dtype) {
  using Kind = tile::TensorInit::Kind;
  tile::TensorInit init;
  const auto random = [&] {
    init.kind = Kind::random;
    init.seed = rng.below(1000);
    return init;
  };
  switch (rng.below(4)) {
  case 0:
    return random();
  case 1:
    init.kind = Kind::constant;
    init.value = static_cast<std::int64_t>(1 + rng.below(100));
    return init;
  default:
    // The bit types (b8..b64) take no arange.
    if (dtype.spelling.front() == 'b' && dtype.spelling != "bfloat16" && dtype.spelling != "bf16")
      return random();
    init.kind = Kind::arange_mod;
    init.modulus = rng.pick(std::vector<std::int64_t>{7, 97, 113, 251});
    return init;
  }
}

std::int64_t Builder::shared_bytes() const {
  std::int64_t total = 0;
  for (const auto& t : m.tensors)
    if (t.shared) {
      const std::int64_t a = t.align ? t.align : tile::default_shared_align;
      total = (total + a - 1) / a * a + t.bytes();
    }
  return total;
}

namespace {

/// Splits n into 1..3 factors, x first; the last axis at most `max_last`.
std::vector<std::int64_t> shape_of(Rng& rng, std::int64_t n, unsigned rank, std::int64_t max_z) {
  if (rank == 1)
    return {n};
  auto zs = divisors(n, rank == 3 ? max_z : n);
  const std::int64_t z = rng.pick(zs);
  const std::int64_t rest = n / z;
  if (rank == 2)
    return {rest, z};
  const std::int64_t y = rng.pick(divisors(rest, rest));
  return {rest / y, y, z};
}

} // namespace

void Builder::launch(std::int64_t threads, std::int64_t ctas) {
  const unsigned brank = rng.chance(3, 5) ? 1 : rng.chance(2, 3) ? 2 : 3;
  m.block = shape_of(rng, threads, brank, max_block_z);
  m.block_as_array = brank > 1 || rng.chance(1, 4);
  const unsigned grank = rng.chance(3, 5) ? 1 : rng.chance(2, 3) ? 2 : 3;
  m.grid = shape_of(rng, ctas, grank, ctas);
  m.grid_as_array = grank > 1 || rng.chance(1, 4);
  if (m.block.size() == 2)
    use(Feature::block_2d);
  if (m.block.size() == 3)
    use(Feature::block_3d);
  if (m.grid.size() == 2)
    use(Feature::grid_2d);
  if (m.grid.size() == 3)
    use(Feature::grid_3d);
  if (threads == max_block_threads)
    use(Feature::block_1024);
  if (threads % warp_size)
    use(Feature::block_odd);
  if (ctas > 1)
    use(Feature::multi_cta);
}

std::int64_t Builder::threads() const {
  std::int64_t n = 1;
  for (auto b : m.block)
    n *= b;
  return n;
}

std::int64_t Builder::ctas() const {
  std::int64_t n = 1;
  for (auto g : m.grid)
    n *= g;
  return n;
}

// ---------------------------------------------------------------------------------------
// Rows

bool RowCopy::cross() const {
  return read_of != dst_of;
}

bool RowCopy::src_linear() const {
  for (std::size_t t = 0; t < src_of.size(); ++t)
    if (src_of[t] != static_cast<std::int64_t>(t))
      return false;
  return !src_of.empty();
}

std::vector<std::pair<std::string, std::int64_t>> RowCopy::repeat_axes() const {
  if (!rearranged)
    return {};
  if (p == 1)
    return {{"r", reps}};
  return {{"q", reps / p}, {"p", p}};
}

namespace {

/// "(r v) -> r v", v=V or "(q p v) -> p q v", p=P, v=V, with `lead` groups in front.
std::string rearrange(const RowCopy& r, std::int64_t es, const std::string& lead_left,
                      const std::string& lead_right, const std::string& lead_sizes) {
  const std::int64_t v = r.chunk / es;
  std::string left = r.p == 1 ? "(r v)" : "(q p v)";
  std::string right = r.p == 1 ? "r v" : r.permuted ? "p q v" : "q p v";
  std::string sizes =
      lead_sizes + (r.p == 1 ? "" : "p=" + std::to_string(r.p) + ", ") + "v=" + std::to_string(v);
  return ".rearrange(\"" + lead_left + left + " -> " + lead_right + right + "\", " + sizes + ")";
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts)
    s += (s.empty() ? "" : ", ") + p;
  return s;
}

} // namespace

ViewText RowCopy::src_view(const std::string& tensor, std::int64_t threads,
                           std::int64_t ctas) const {
  std::string v = tensor;
  if (src_split > 1) {
    const std::string lead = lead_src.empty() ? "" : "x ";
    v += ".rearrange(\"" + lead + "n a b -> " + lead + "n (a b)\")";
  }
  if (src_view_dtype)
    v += ".view(\"" + std::string(src_view_dtype->spelling) + "\")";
  const std::int64_t row_elems = row_bytes() / src_es;
  std::string cols = ":";
  if (slice_lo > 0 || src_row_bytes != row_bytes())
    cols = std::to_string(slice_lo) + ":" + std::to_string(slice_lo + row_elems);
  std::vector<std::string> idx = lead_src;
  if (!cta_scope) {
    idx.push_back(src_row);
    idx.push_back(cols);
    v += ".sub[" + join(idx) + "]";
    if (rearranged)
      v += rearrange(*this, src_es, "", "", "");
    return ViewText{v};
  }
  idx.push_back(":");
  idx.push_back(cols);
  v += ".sub[" + join(idx) + "]";
  const std::string w = "w=" + std::to_string(threads / warp_size) + ", t=32, ";
  if (ctas == 1)
    return ViewText{v + rearrange(*this, src_es, "(w t) ", "w t ", w)};
  return ViewText{v + rearrange(*this, src_es, "(g w t) ", "g w t ", w) + ".sub[bid]"};
}

ViewText RowCopy::dst_view(const std::string& tensor, std::int64_t threads) const {
  const std::string view =
      dst_view_dtype ? ".view(\"" + std::string(dst_view_dtype->spelling) + "\")" : "";
  std::vector<std::string> idx = lead_dst;
  if (!cta_scope) {
    idx.push_back(dst_row);
    idx.push_back(":");
    std::string v = tensor + view + ".sub[" + join(idx) + "]";
    if (rearranged)
      v += rearrange(*this, dst_es, "", "", "");
    return ViewText{v};
  }
  std::string v = tensor + view;
  if (!idx.empty())
    v += ".sub[" + join(idx) + "]";
  const std::string w = "w=" + std::to_string(threads / warp_size) + ", t=32, ";
  return ViewText{v + rearrange(*this, dst_es, "(w t) ", "w t ", w)};
}

namespace {

/// A permutation of 0..T-1 as an expression of the thread's index.
/// A permutation of the threads' rows: its text and its value for each thread.
struct ThreadRow {
  std::string text;
  std::vector<std::int64_t> of;
};

ThreadRow row_of(std::string text, std::int64_t T,
                 const std::function<std::int64_t(std::int64_t)>& f) {
  ThreadRow r{std::move(text), {}};
  r.of.resize(static_cast<std::size_t>(T));
  for (std::int64_t t = 0; t < T; ++t)
    r.of[static_cast<std::size_t>(t)] = f(t);
  return r;
}

ThreadRow own_row(std::int64_t T) {
  return row_of("tid", T, [](std::int64_t t) { return t; });
}

ThreadRow thread_row(Builder& b, std::int64_t T) {
  const std::string last = std::to_string(T - 1);
  switch (b.rng.below(7)) {
  case 0:
    if (T > 1)
      return row_of(last + " - tid", T, [&](std::int64_t t) { return T - 1 - t; });
    break;
  case 1:
    if (T > 1) {
      const std::int64_t add = b.rng.between(1, T - 1);
      return row_of("(tid + " + std::to_string(add) + ") % " + std::to_string(T), T,
                    [&](std::int64_t t) { return (t + add) % T; });
    }
    break;
  case 2:
    if (T > 1 && power_of_two(T)) {
      b.use(Feature::xor_index);
      const std::int64_t mask = b.rng.between(1, T - 1);
      return row_of("tid ^ " + std::to_string(mask), T, [&](std::int64_t t) { return t ^ mask; });
    }
    break;
  case 3:
    if (T % warp_size == 0) {
      if (b.rng.chance(1, 2))
        return row_of("warp * 32 + lane", T, [](std::int64_t t) { return t; });
      const std::int64_t warps = T / warp_size;
      return row_of("lane * " + std::to_string(warps) + " + warp", T,
                    [&](std::int64_t t) { return (t % warp_size) * warps + t / warp_size; });
    }
    break;
  case 4:
    if (b.m.block.size() > 1) {
      b.use(Feature::launch_ids);
      return row_of(b.m.block.size() == 2 ? "tid.x + ntid.x * tid.y"
                                          : "tid.x + ntid.x * (tid.y + ntid.y * tid.z)",
                    T, [](std::int64_t t) { return t; });
    }
    break;
  default:
    break;
  }
  return own_row(T);
}

/// A row in 0..T-1 through multiplication, remainder and division (rows may repeat).
std::string arithmetic_row(Builder& b, std::int64_t T) {
  if (T == 1)
    return "tid";
  b.use(Feature::arithmetic_index);
  if (b.rng.chance(1, 2))
    return "(tid * " + std::to_string(b.rng.between(2, 9)) + ") % " + std::to_string(T);
  return "tid / " + std::to_string(b.rng.between(2, 4));
}

/// A row in 0..T-1 that depends on a parameter (not a permutation: rows may repeat).
std::string param_row(Builder& b, std::int64_t T, std::vector<std::string>& names) {
  if (T == 1)
    return "tid";
  b.use(Feature::param_index);
  const std::string last = std::to_string(T - 1);
  std::string n;
  switch (b.rng.below(4)) {
  case 0:
    n = b.param_u32(0, T - 1);
    names.push_back(n);
    return "min(tid, " + n + ")";
  case 1:
    n = b.param_u32(1, T);
    names.push_back(n);
    return "tid % " + n;
  case 2:
    n = b.param_u32(0, T - 1);
    names.push_back(n);
    return n + " < tid ? " + n + " : tid";
  default:
    n = b.param_u32(0, T);
    names.push_back(n);
    return "clamp(tid + " + n + ", 0, " + last + ")";
  }
}

} // namespace

std::string global_row(std::int64_t T, std::int64_t G, const std::string& thread) {
  if (G == 1)
    return thread;
  return "bid * " + std::to_string(T) + " + " + paren(thread);
}

std::int64_t pick_threads(Rng& rng, std::int64_t max, bool warps) {
  max = std::min(max, max_block_threads);
  if (warps)
    return warp_size * rng.edge(1, std::max<std::int64_t>(1, max / warp_size));
  static const std::vector<std::int64_t> edges{1,   2,   31,  32,  33,  63,   64,   96,
                                               100, 127, 128, 160, 256, 1000, 1023, 1024};
  if (rng.chance(1, 2)) {
    const std::int64_t t = rng.pick(edges);
    if (t <= max)
      return t;
  }
  return rng.edge(1, max);
}

RowCopy pick_rows(Builder& b, bool allow_cta, std::int64_t tiles, std::int64_t row_ctas,
                  std::int64_t stages, bool cross_read) {
  RowCopy r;
  const std::int64_t T = b.threads(), G = row_ctas;
  r.cta_scope = allow_cta && T % warp_size == 0 && b.rng.chance(1, 3);
  b.use(r.cta_scope ? Feature::cta_scope : Feature::thread_scope);
  const bool cg = b.rng.chance(1, 2);
  r.cache_op = cg ? ptx::CacheOp::cg : ptx::CacheOp::ca;
  r.chunk = cg ? cg_chunk : ca_chunks[b.rng.below(ca_chunks.size())];
  b.use(cg ? Feature::cg : Feature::ca);
  b.use(r.chunk == 4 ? Feature::chunk4 : r.chunk == 8 ? Feature::chunk8 : Feature::chunk16);
  const std::int64_t row_cap = b.opt.max_tensor_bytes / (std::max(tiles * G, stages) * T);
  const std::int64_t chunks_cap = std::max<std::int64_t>(1, row_cap / r.chunk);
  const std::int64_t extra = chunks_cap > 1 && b.rng.chance(1, 4) ? 1 : 0;
  r.reps = b.rng.edge(1, std::min<std::int64_t>(16, chunks_cap - extra));
  const std::int64_t lo_chunks = extra && b.rng.chance(1, 2) ? 1 : 0;
  if (r.reps >= 4 && b.rng.chance(1, 3)) {
    auto ds = divisors(r.reps, r.reps);
    ds.erase(std::remove_if(ds.begin(), ds.end(), [&](auto d) { return d == 1 || d == r.reps; }),
             ds.end());
    if (!ds.empty()) {
      r.p = b.rng.pick(ds);
      r.permuted = b.rng.chance(1, 2);
      b.use(Feature::two_repeat_axes);
    }
  }
  r.rearranged = r.cta_scope || r.reps > 1 || b.rng.chance(1, 2);
  if (r.reps > 1)
    b.use(Feature::repeat_axes);
  // Element sizes: any power of two up to the chunk, independently on both sides.
  auto es = [&] { return std::int64_t{1} << b.rng.below(r.chunk == 4 ? 3 : 4); };
  r.dst_es = es();
  const std::int64_t declared_es = es();
  r.src_es = declared_es;
  if (b.rng.chance(1, 4)) {
    r.src_es = es();
    r.src_view_dtype = b.dtype(r.src_es);
    b.use(Feature::view_dtype);
  }
  if (r.src_es != r.dst_es)
    b.use(Feature::dtype_mix);
  r.src_dtype = b.dtype(declared_es);
  r.dst_decl_es = r.dst_es;
  if (b.rng.chance(1, 6)) {
    r.dst_decl_es = es();
    r.dst_view_dtype = b.dtype(r.dst_es);
    b.use(Feature::dst_view_dtype);
  }
  r.dst_dtype = b.dtype(r.dst_decl_es);
  r.src_row_bytes = (r.reps + extra) * r.chunk;
  r.src_cols = r.src_row_bytes / declared_es;
  if (r.src_cols % 2 == 0 && b.rng.chance(1, 6)) {
    auto splits = divisors(r.src_cols, 8);
    splits.erase(splits.begin()); // 1
    r.src_split = b.rng.pick(splits);
    b.use(Feature::merge_axes);
  }
  r.slice_lo = lo_chunks * r.chunk / r.src_es;
  if (extra)
    b.use(Feature::sub_slice);
  // Rows.
  if (!r.cta_scope) {
    const auto pick = b.rng.below(7);
    if (pick < 5) {
      const ThreadRow src = pick < 3 ? own_row(T) : thread_row(b, T);
      r.src_thread = src.text;
      r.src_of = src.of;
    } else {
      r.src_thread = pick < 6 ? param_row(b, T, r.names) : arithmetic_row(b, T);
    }
    r.src_row = global_row(T, G, r.src_thread);
    const ThreadRow dst = b.rng.chance(1, 2) ? own_row(T) : thread_row(b, T);
    const ThreadRow read = !cross_read && b.rng.chance(2, 3) ? dst : thread_row(b, T);
    r.dst_row = dst.text;
    r.dst_of = dst.of;
    r.read_row = read.text;
    r.read_of = read.of;
  } else {
    const ThreadRow own = own_row(T);
    const ThreadRow read = !cross_read && b.rng.chance(2, 3) ? own : thread_row(b, T);
    r.src_thread = own.text;
    r.src_of = own.of;
    r.src_row = global_row(T, G, r.src_thread);
    r.dst_row = own.text;
    r.dst_of = own.of;
    r.read_row = read.text;
    r.read_of = read.of;
  }
  if (r.cross())
    b.use(Feature::cross_thread_readback);
  return r;
}

// ---------------------------------------------------------------------------------------
// Apply extras

namespace {

/// A new u32 parameter in lo..hi that the apply's keys name.
std::string named_param(Builder& b, ApplyExtras& x, std::int64_t lo, std::int64_t hi) {
  std::string n = b.param_u32(lo, hi);
  x.names.push_back(n);
  return n;
}

ModelPolicy cache_policy(Builder& b, ApplyExtras& x) {
  switch (b.rng.below(3)) {
  case 0: {
    b.use(Feature::policy_param);
    const std::string p = b.param_u64(policy_values[b.rng.below(policy_values.size())]);
    x.names.push_back(p);
    static constexpr std::array<PolicyParam::Spelling, 3> spellings{
        PolicyParam::Spelling::bare, PolicyParam::Spelling::prefixed, PolicyParam::Spelling::table};
    return PolicyParam{p, spellings[b.rng.below(spellings.size())]};
  }
  default: {
    const bool table = b.rng.below(2) == 1;
    b.use(table ? Feature::policy_table : Feature::policy_createpolicy);
    PolicyCreate c;
    c.table = table;
    c.primary = primaries[b.rng.below(primaries.size())];
    if (b.rng.chance(1, 2))
      c.secondary = secondaries[b.rng.below(secondaries.size())];
    if (b.rng.chance(1, 2))
      c.fraction = fractions[b.rng.below(fractions.size())];
    return c;
  }
  }
}

/// A variable an expression may range over, with its values 0..count-1.
struct Var {
  std::string name;
  std::int64_t count;
};

std::vector<Var> expression_vars(Builder& b, const ApplyContext& ctx) {
  std::vector<Var> vars;
  for (const auto& [n, size] : ctx.rows->repeat_axes())
    vars.push_back({n, size});
  if (!ctx.loop_var.empty())
    vars.push_back({ctx.loop_var, ctx.loop_trips});
  vars.push_back({"lane", std::min<std::int64_t>(warp_size, b.threads())});
  return vars;
}

/// One of expression_vars; a variable other than lane exercises repeat_axis_expr.
Var pick_expression_var(Builder& b, const ApplyContext& ctx) {
  const auto vars = expression_vars(b, ctx);
  Var v = b.rng.pick(vars);
  if (v.name != "lane")
    b.use(Feature::repeat_axis_expr);
  return v;
}

/// A src_size in 0..C through the rest of the expression grammar: shifts, masks, the
/// select spellings, T.uint32, signed max, the launch's sizes.
std::string src_size_operators(Builder& b, std::int64_t C, ApplyExtras& x) {
  b.use(Feature::expr_operators);
  const std::string c = std::to_string(C);
  switch (b.rng.below(6)) {
  case 0: {
    const std::int64_t shift = b.rng.between(1, 2);
    return "(tid & " + std::to_string(C >> shift) + ") << " + std::to_string(shift);
  }
  case 1: {
    const std::string n = named_param(b, x, 0, b.threads());
    return "if_then_else(tid < " + n + ", " + c + ", " + std::to_string(b.rng.edge(0, C)) + ")";
  }
  case 2: {
    const std::string n = named_param(b, x, 0, warp_size);
    return "T.if_then_else(lane >= " + n + ", 0, T.uint32(" + c + "))";
  }
  case 3:
    return "max(" + c + " - tid, 0)";
  case 4:
    return "(lane >> 1) % " + std::to_string(C + 1);
  default:
    return "clamp(" + c + " * (bid + 1) - tid, 0, " + c + ")";
  }
}

IntOrExpr src_size(Builder& b, const ApplyContext& ctx, ApplyExtras& x) {
  const std::int64_t C = ctx.rows->chunk;
  const std::string c = std::to_string(C);
  const std::int64_t T = b.threads(), G = b.ctas();
  if (b.rng.chance(1, 3)) {
    b.use(Feature::src_size_expr);
    return ExprText{src_size_operators(b, C, x)};
  }
  switch (b.rng.below(6)) {
  case 0:
    b.use(Feature::src_size_const);
    return b.rng.edge(0, C);
  case 1:
    b.use(Feature::src_size_expr);
    return ExprText{"tid % " + std::to_string(C + 1)};
  case 2: {
    b.use(Feature::src_size_expr);
    const std::string n = named_param(b, x, 0, T);
    return ExprText{"tid < " + n + " ? " + c + " : " + std::to_string(b.rng.edge(0, C))};
  }
  case 3: {
    b.use(Feature::src_size_expr);
    const Var v = pick_expression_var(b, ctx);
    const std::string n = named_param(b, x, 0, C * v.count);
    return ExprText{"clamp(" + n + " - " + c + " * " + v.name + ", 0, " + c + ")"};
  }
  case 4:
    if (G > 1) {
      b.use(Feature::src_size_expr);
      return ExprText{"bid == " + std::to_string(G - 1) + " ? " + std::to_string(b.rng.edge(0, C)) +
                      " : " + c};
    }
    [[fallthrough]];
  default:
    b.use(Feature::src_size_expr);
    return ExprText{c + " - lane % " + std::to_string(C + 1)};
  }
}

BoolOrExpr ignore_src(Builder& b, const ApplyContext& ctx, ApplyExtras& x) {
  const std::int64_t T = b.threads();
  switch (b.rng.below(5)) {
  case 0:
    b.use(Feature::ignore_src_const);
    return b.rng.chance(1, 2);
  case 1:
    b.use(Feature::ignore_src_expr);
    return ExprText{"tid % 3 == 1"};
  case 2: {
    b.use(Feature::ignore_src_expr);
    const Var v = pick_expression_var(b, ctx);
    const std::string n = named_param(b, x, 0, T);
    return ExprText{v.name + " == " + std::to_string(v.count - 1) + " && tid >= " + n};
  }
  case 3: {
    b.use(Feature::ignore_src_expr);
    b.use(Feature::expr_operators);
    const std::string n = named_param(b, x, 0, warp_size - 1);
    return ExprText{b.rng.chance(1, 2) ? "(lane ^ " + n + ") == 0" : "!(lane < " + n + ")"};
  }
  default:
    b.use(Feature::ignore_src_expr);
    return ExprText{"bid == " + std::to_string(b.ctas() - 1)};
  }
}

BoolOrExpr pred(Builder& b, const ApplyContext& ctx, ApplyExtras& x) {
  switch (b.rng.below(6)) {
  case 0:
    b.use(Feature::pred_const);
    return b.rng.chance(1, 2);
  case 1: {
    b.use(Feature::pred_expr);
    // A predicate decides which copies are issued, so the whole-launch checks run each
    // value of n: a window of at most 9 values around a point (often an end: 0, 1, T - 1,
    // T) keeps it, times a loop's start and stop (16 values each), within the 4096 runs.
    const std::int64_t T = b.threads(), at = b.rng.edge(0, T);
    const std::string n = named_param(b, x, std::max<std::int64_t>(0, at - 4), std::min(T, at + 4));
    return ExprText{"tid < " + n};
  }
  case 2: {
    b.use(Feature::pred_expr);
    const Var v = pick_expression_var(b, ctx);
    return ExprText{v.name +
                    " != " + std::to_string(b.rng.below(static_cast<std::uint64_t>(v.count)))};
  }
  case 3:
    b.use(Feature::pred_expr);
    return ExprText{"(tid & 1) != 0"};
  case 4:
    b.use(Feature::pred_expr);
    return ExprText{"warp != 0"};
  default:
    b.use(Feature::pred_expr);
    b.use(Feature::expr_operators);
    return ExprText{b.rng.chance(1, 2) ? "(tid | 1) == tid" : "lane < 16 && warp % 2 == 0"};
  }
}

} // namespace

ApplyExtras apply_extras(Builder& b, const ApplyContext& ctx) {
  ApplyExtras x;
  ModelApply& a = x.apply;
  a.opcode.cache_op = ctx.rows->cache_op;
  if (b.rng.chance(1, 4)) {
    a.opcode.dst_space = ptx::SharedSpace::shared_cta;
    b.use(Feature::shared_cta_space);
  }
  a.opcode.cache_hint = b.opt.cache_hints && b.rng.chance(1, 4);
  if (b.rng.chance(1, 3)) {
    static constexpr std::array<std::pair<ptx::L2Prefetch, Feature>, 3> sizes{{
        {ptx::L2Prefetch::b64, Feature::prefetch_64},
        {ptx::L2Prefetch::b128, Feature::prefetch_128},
        {ptx::L2Prefetch::b256, Feature::prefetch_256},
    }};
    const auto& [q, f] = sizes[b.rng.below(sizes.size())];
    a.opcode.prefetch = q;
    b.use(f);
  }
  if (ctx.rows->cta_scope)
    a.scope = ScopeName::cta;
  else if (b.rng.chance(1, 6))
    a.scope = ScopeName::thread;
  switch (b.rng.below(4)) {
  case 0:
    a.src_size = src_size(b, ctx, x);
    break;
  case 1:
    a.ignore_src = ignore_src(b, ctx, x);
    break;
  default:
    break;
  }
  if (ctx.allow_pred && b.rng.chance(1, 4)) {
    a.pred = pred(b, ctx, x);
    x.needs_fill = true;
  }
  x.exact = !a.src_size && !a.ignore_src && !a.pred;
  if (a.opcode.cache_hint)
    a.cache_policy = cache_policy(b, x);
  return x;
}

ModelPattern fill_pattern(Rng& rng) {
  ModelPattern p;
  switch (rng.below(3)) {
  case 0:
    p.bytes = {static_cast<std::uint8_t>(rng.below(256))};
    return p;
  case 1: {
    p.form = ModelPattern::Form::list;
    const auto n = 1 + rng.below(5);
    for (std::uint64_t i = 0; i < n; ++i)
      p.bytes.push_back(static_cast<std::uint8_t>(rng.below(256)));
    return p;
  }
  default: {
    p.form = ModelPattern::Form::hex;
    const auto n = 1 + rng.below(4);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto hi = rng.below(16);
      p.bytes.push_back(static_cast<std::uint8_t>(hi * 16 + rng.below(16)));
    }
    return p;
  }
  }
}

} // namespace ptxgen::driver::fuzz
