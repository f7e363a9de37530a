#include "emitter/tile/bulk_contract.hpp"

#include "emitter/ptx/validator.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"
#include "emitter/tile/im2col.hpp"
#include "emitter/tile/reduce.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace ptxgen::tile {

// A named namespace: the unity build joins this file with contract.cpp, whose file-local
// helpers have names of their own.
namespace bulk_proof {

/// Above this many threads a launch is not enumerated.
constexpr std::int64_t kMaxEnumeratedThreads = std::int64_t{1} << 20;
constexpr Interval kS32{-(std::int64_t{1} << 31), (std::int64_t{1} << 31) - 1};

template <class T>
std::uint32_t span_of(const Located<T>& l) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(l.text.size(), 1));
}

void report(const BulkProofContext& c, DiagId id, const SourcePos& pos, std::uint32_t length,
            std::string message) {
  c.out.add(diagnostic_at(id, pos, std::move(message), length));
}

std::string interval_text(const std::optional<Interval>& b) {
  return b ? std::to_string(b->lo) + ".." + std::to_string(b->hi) : "unbounded";
}

std::string thread_text(const ExprEnv& env) {
  return "thread " + std::to_string(env.tid) + " (bid " + std::to_string(env.bid) + ")";
}

/// The launch restricted to the threads whose pred may hold; nullopt when none can.
std::optional<LaunchBounds> issuing(const BulkProofContext& c, const Located<ExprPtr>* pred) {
  if (pred == nullptr)
    return c.bounds;
  return narrow_on(*pred->value, true, c.bounds);
}

bool enumerable(const Kernel& k) {
  return k.grid * k.block <= kMaxEnumeratedThreads;
}

/// Calls f(env) for every thread whose pred may hold, until f returns false. A pred that
/// names a parameter or a loop variable may hold for any thread (the environment has their
/// test values only).
template <class F>
void for_each_issuer(const Kernel& k, const Located<ExprPtr>* pred, F&& f) {
  if (pred != nullptr && uses_params(*pred->value))
    pred = nullptr;
  for (std::int64_t b = 0; b < k.grid; ++b)
    for (std::int64_t t = 0; t < k.block; ++t) {
      const ExprEnv env = k.env_for(b, t);
      if (pred != nullptr) {
        const auto p = evaluate(*pred->value, env);
        if (!p || *p == 0)
          continue;
      }
      if (!f(env))
        return;
    }
}

/// |a * b|, or |b| when the product leaves int64 (a * b is a multiple of b either way).
std::int64_t product_divisor(std::int64_t a, std::int64_t b) {
  std::int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || p == std::numeric_limits<std::int64_t>::min())
    return b == std::numeric_limits<std::int64_t>::min() ? 1 : std::llabs(b);
  return std::llabs(p);
}

/// A number every value of the index under `lb` is a multiple of: the value itself when
/// the bounds allow one, else known_divisor().
std::int64_t index_divisor(const Expr& index, const LaunchBounds& lb) {
  const auto b = bounds(index, lb);
  if (b && b->lo == b->hi && b->lo != std::numeric_limits<std::int64_t>::min())
    return std::llabs(b->lo);
  return known_divisor(index);
}

/// A number every start offset of the view (bytes from its tensor's base) is a multiple
/// of under `lb`; 0 when the start is always the tensor's base.
std::int64_t start_divisor(const View& v, const LaunchBounds& lb) {
  std::int64_t g = std::llabs(v.offset_bytes);
  for (const RuntimeTerm& t : v.terms)
    g = std::gcd(g, product_divisor(index_divisor(*t.index, lb), t.stride_bytes));
  return g;
}

/// The largest power of two that divides every start address of the view under `lb`.
std::int64_t proven_alignment(const View& v, const LaunchBounds& lb) {
  const std::int64_t base = v.tensor->align;
  const std::int64_t d = start_divisor(v, lb);
  return d == 0 ? base : std::gcd(base, d);
}

/// The alignment of an address at `offset` from a base aligned to `base` (a power of two).
std::int64_t address_alignment(std::int64_t base, std::int64_t offset) {
  return offset == 0 ? base : std::gcd(base, std::llabs(offset));
}

/// Where a start alignment proof fails.
struct Misaligned {
  std::int64_t align = 0;    ///< the alignment found (or the best proven)
  bool base = false;         ///< the tensor's declared alignment is already too small
  std::optional<ExprEnv> at; ///< the thread that starts there, when enumerated
  std::int64_t offset = 0;   ///< its start offset, when `at`
};

/// Proves `ok(alignment)` for every start address of the view over the threads whose pred
/// may hold: by divisibility, else thread by thread when the view names no parameter or
/// loop variable; the first failure otherwise.
template <class Ok>
std::optional<Misaligned> find_misaligned(const BulkProofContext& c, const View& v,
                                          const Located<ExprPtr>* pred, Ok ok) {
  const auto lb = issuing(c, pred);
  if (!lb)
    return std::nullopt; // no thread issues the op
  const std::int64_t proven = proven_alignment(v, *lb);
  if (ok(proven))
    return std::nullopt;
  if (!ok(v.tensor->align))
    return Misaligned{v.tensor->align, true, std::nullopt, 0};
  if (uses_params(v) || !enumerable(c.kernel))
    return Misaligned{proven, false, std::nullopt, 0};
  std::optional<Misaligned> found;
  const std::vector<std::int64_t> zeros(v.rank(), 0);
  for_each_issuer(c.kernel, pred, [&](const ExprEnv& env) {
    const auto off = v.byte_offset(zeros, env);
    if (!off)
      return true; // the bounds proof reports an index without a value
    const std::int64_t a = address_alignment(v.tensor->align, *off);
    if (ok(a))
      return true;
    found = Misaligned{a, false, env, *off};
    return false;
  });
  return found;
}

/// The message's end for a failed alignment proof of a view that is not `base`.
std::string misaligned_text(const Misaligned& m, std::string_view need) {
  if (m.at)
    return "at " + thread_text(*m.at) + " it starts at byte offset " + std::to_string(m.offset) +
           " of its tensor, which is only " + std::to_string(m.align) + "-byte aligned; " +
           std::string(need);
  return "cannot prove it for every thread, iteration and value of the declared ranges: its "
         "start is only known to be " +
         std::to_string(m.align) + "-byte aligned; " + std::string(need);
}

/// A 1-D bulk operand: not swizzled, one contiguous range; its bytes, or nullopt after
/// reporting.
std::optional<std::int64_t> bulk_operand(const BulkProofContext& c, const Located<View>& lv,
                                         std::string_view role) {
  const View& v = lv.value;
  if (v.tensor->swizzle != TensorMapSwizzle::none) {
    report(c, DiagId::contract_bulk_swizzled, lv.pos, span_of(lv),
           std::string(role) + " '" + v.tensor->name + "' is a " +
               std::string(name(v.tensor->swizzle)) +
               "-swizzled tensor: a 1-D bulk copy moves bytes in order and does not swizzle "
               "(use tensor_load / tensor_store through a map with that swizzle)");
    return std::nullopt;
  }
  const auto bytes = contiguous_bytes(v);
  if (!bytes)
    report(c, DiagId::contract_bulk_contiguous, lv.pos, span_of(lv),
           std::string(role) + " " + v.str() +
               " is not one contiguous byte range: a 1-D bulk copy moves its elements in "
               "row-major order without gaps (each axis's stride the bytes of the axes inside "
               "it)");
  return bytes;
}

void check_bulk_align(const BulkProofContext& c, const Located<View>& lv, std::string_view role,
                      const Located<ExprPtr>* pred) {
  constexpr std::int64_t need = ptx::bulk_granule;
  const auto bad = find_misaligned(c, lv.value, pred, [](std::int64_t a) { return a % need == 0; });
  if (!bad)
    return;
  const std::string what = std::to_string(need) + "-byte aligned";
  report(c, DiagId::contract_bulk_align, lv.pos, span_of(lv),
         bad->base ? std::string(role) + ": tensor '" + lv.value.tensor->name + "' is declared " +
                         std::to_string(bad->align) + "-byte aligned; a 1-D bulk operand starts " +
                         what + " (declare align = " + std::to_string(need) + " or more)"
                   : std::string(role) + " " + lv.value.str() + " must start " + what + ": " +
                         misaligned_text(*bad, "a 1-D bulk copy needs " + what + " addresses"));
}

void check_bulk_pair(const BulkProofContext& c, const Located<View>& dst, const Located<View>& src,
                     const Located<ExprPtr>* pred) {
  if (pred != nullptr)
    c.u32(*pred->value, c.bounds, pred->pos, span_of(*pred), "pred", true);
  const auto d = bulk_operand(c, dst, "dst");
  const auto s = bulk_operand(c, src, "src");
  if (d && s) {
    if (*d != *s)
      report(c, DiagId::contract_bulk_size, src.pos, span_of(src),
             "a 1-D bulk copy moves equal byte counts: dst has " + std::to_string(*d) +
                 " bytes, src has " + std::to_string(*s));
    else if (*d % ptx::bulk_granule != 0 || *d < ptx::bulk_granule || *d > ptx::max_bulk_bytes)
      report(c, DiagId::contract_bulk_size, dst.pos, span_of(dst),
             "a 1-D bulk copy moves a multiple of " + std::to_string(ptx::bulk_granule) +
                 " bytes in " + std::to_string(ptx::bulk_granule) + ".." +
                 std::to_string(ptx::max_bulk_bytes) + "; dst and src have " + std::to_string(*d));
  }
  if (d && c.in_bounds(dst, "dst", pred))
    check_bulk_align(c, dst, "dst", pred);
  if (s && c.in_bounds(src, "src", pred))
    check_bulk_align(c, src, "src", pred);
}

// ------------------------------------------------------------------------ tensor copies

/// The refusal of a shared view that holds a narrow swizzled box packed: the hardware pads
/// every row to the span and writes past the view.
void report_swizzle_packed(const BulkProofContext& c, const TensorMapDesc& map,
                           const Located<View>& lv, std::string_view role) {
  const std::int64_t pitch = box_row_pitch(map);
  const std::int64_t esize = size_bytes(map.dtype);
  const std::int64_t row = box_extent(map).back() * esize;
  const std::int64_t rows = shared_box_bytes(map) / pitch;
  report(c, DiagId::contract_tensor_swizzle_padding, lv.pos, span_of(lv),
         std::string(role) + " holds " + std::to_string(box_bytes(map)) + " bytes, the box of '" +
             map.tensor + "''s map packed; its " + std::to_string(row) +
             "-byte rows are narrower than the " + std::string(name(map.swizzle)) + " swizzle's " +
             std::to_string(pitch) +
             "-byte span, and a swizzled copy pads every row to the span in shared memory (the "
             "box takes " +
             std::to_string(rows) + " rows x " + std::to_string(pitch) + " = " +
             std::to_string(rows * pitch) + " bytes; the transaction count stays " +
             std::to_string(box_bytes(map)) +
             "): declare the shared tile with an inner dimension of " +
             std::to_string(pitch / esize) + " elements and read the box's " +
             std::to_string(row / esize) + " columns of each row");
}

/// The shared side of a tensor copy: contiguous, the box's room in shared memory (its
/// bytes, a narrow swizzled row padded to the span), the map's swizzle, inside its tensor,
/// aligned as check_tensor_map_shared asks.
void check_tensor_shared(const BulkProofContext& c, const TensorMapDesc& map,
                         const Located<View>& lv, std::string_view role,
                         const Located<ExprPtr>* pred) {
  const View& v = lv.value;
  const auto bytes = contiguous_bytes(v);
  const std::int64_t want = shared_box_bytes(map);
  bool ok = true;
  if (!bytes) {
    report(c, DiagId::contract_bulk_contiguous, lv.pos, span_of(lv),
           std::string(role) + " " + v.str() +
               " is not one contiguous byte range: a tensor copy writes the box row-major "
               "without gaps (a swizzled row narrower than its span padded to the span)");
    ok = false;
  } else if (*bytes != want && *bytes == box_bytes(map)) {
    report_swizzle_packed(c, map, lv, role);
    ok = false;
  } else if (*bytes != want) {
    report(c, DiagId::contract_tensor_box_bytes, lv.pos, span_of(lv),
           std::string(role) + " holds " + std::to_string(*bytes) + " bytes; the box of '" +
               map.tensor + "''s map is " + std::to_string(want) +
               " bytes (ceil(box / element stride) elements per dimension of " +
               std::string(name(map.dtype)) +
               (want != box_bytes(map) ? ", each row padded to the swizzle's span in shared memory"
                                       : "") +
               ")");
    ok = false;
  }
  if (v.tensor->swizzle != map.swizzle) {
    report(c, DiagId::contract_tensor_swizzle, lv.pos, span_of(lv),
           std::string(role) + " '" + v.tensor->name + "' has swizzle " +
               std::string(name(v.tensor->swizzle)) + "; the map of '" + map.tensor +
               "' moves the box with swizzle " + std::string(name(map.swizzle)) +
               " (declare swizzle = \"" + std::string(name(map.swizzle)) + "\" on '" +
               v.tensor->name + "')");
    ok = false;
  }
  if (!c.in_bounds(lv, role, pred) || !ok)
    return;
  const auto bad = find_misaligned(
      c, v, pred, [&map](std::int64_t a) { return check_tensor_map_shared(map, a).empty(); });
  if (!bad)
    return;
  const Diagnostics rule = check_tensor_map_shared(map, bad->align);
  const std::string why = rule.empty() ? std::string() : rule.items().front().message;
  report(c, DiagId::contract_tmap_shared_align, lv.pos, span_of(lv),
         bad->base ? std::string(role) + ": tensor '" + v.tensor->name + "' is declared " +
                         std::to_string(bad->align) + "-byte aligned (" + why + ")"
                   : std::string(role) + " " + v.str() + ": " + misaligned_text(*bad, why));
}

/// The last element of the inner dimension a store may spill into, or -1 when the inner
/// extent ends on a 16-byte boundary (nothing spills).
std::int64_t last_spill_element(const TensorMapDesc& map) {
  const std::int64_t esize = size_bytes(map.dtype);
  const std::int64_t inner_bytes = map.global_dims.back() * esize;
  if (inner_bytes % kTensorMapGranule == 0)
    return -1;
  const std::int64_t end = (inner_bytes / kTensorMapGranule + 1) * kTensorMapGranule;
  return end / esize - 1;
}

/// The least multiple of d (d >= 1) at or above x.
std::int64_t multiple_at_or_above(std::int64_t x, std::int64_t d) {
  const std::int64_t q = x / d - (x % d != 0 && x < 0 ? 1 : 0);
  return q * d == x ? x : (q + 1) * d;
}

/// By intervals: a coordinate of the inner dimension in `inner` (a multiple of `d`) whose
/// box reaches the spill elements, while every outer dimension may have an element inside;
/// nullopt when none can (the store never spills).
std::optional<std::int64_t> spill_candidate(const TensorMapDesc& map,
                                            std::span<const Interval> ranges, std::int64_t d) {
  const std::int64_t last = last_spill_element(map);
  if (last < 0)
    return std::nullopt;
  const std::vector<std::int64_t> extent = box_extent(map);
  const std::size_t inner = map.rank() - 1;
  for (std::size_t k = 0; k < inner; ++k) {
    const std::int64_t reach = ranges[k].hi + (extent[k] - 1) * map.element_strides[k];
    if (reach < 0 || ranges[k].lo >= map.global_dims[k])
      return std::nullopt; // no element of this dimension is ever inside
  }
  const std::int64_t lo = std::max(ranges[inner].lo, map.global_dims[inner] - extent[inner] + 1);
  const std::int64_t hi = std::min(ranges[inner].hi, last);
  const std::int64_t first = multiple_at_or_above(lo, std::max<std::int64_t>(d, 1));
  if (first > hi)
    return std::nullopt;
  return first;
}

std::string coords_text(std::span<const std::int64_t> coords) {
  std::string s = "(";
  for (std::size_t k = 0; k < coords.size(); ++k)
    s += (k ? ", " : "") + std::to_string(coords[k]);
  return s + ")";
}

void check_store_spill(const BulkProofContext& c, const TensorMapDesc& map,
                       const std::vector<Located<ExprPtr>>& coords, const LaunchBounds& lb,
                       const Located<ExprPtr>* pred) {
  std::vector<Interval> ranges;
  for (const auto& e : coords)
    ranges.push_back(*bounds(*e.value, lb)); // proven bounded by the caller
  const Located<ExprPtr>& inner = coords.back();
  const auto candidate = spill_candidate(map, ranges, known_divisor(*inner.value));
  if (!candidate)
    return;
  const std::int64_t dim = map.global_dims.back();
  const std::string padding = "elements " + std::to_string(dim) + ".." +
                              std::to_string(last_spill_element(map)) +
                              " of the inner dimension (size " + std::to_string(dim) +
                              "), the padding before the next 16-byte boundary, which a tensor "
                              "store writes anyway";
  const bool by_thread = std::none_of(coords.begin(), coords.end(),
                                      [](const auto& e) { return uses_params(*e.value); }) &&
                         enumerable(c.kernel);
  if (!by_thread) {
    report(c, DiagId::contract_tensor_store_spill, inner.pos, span_of(inner),
           "the inner coordinate '" + inner.text + "' ranges over " + interval_text(ranges.back()) +
               " for the issuing threads and the declared ranges; at " +
               std::to_string(*candidate) + " the box's " + std::to_string(box_extent(map).back()) +
               " inner elements may reach " + padding +
               " (keep the box inside the inner extent, or make it end on a 16-byte boundary)");
    return;
  }
  for_each_issuer(c.kernel, pred, [&](const ExprEnv& env) {
    std::vector<std::int64_t> at;
    for (const auto& e : coords) {
      const auto x = evaluate(*e.value, env);
      if (!x)
        return true;
      at.push_back(*x);
    }
    if (!store_spills(map, at))
      return true;
    report(c, DiagId::contract_tensor_store_spill, inner.pos, span_of(inner),
           "at " + thread_text(env) + " the store's box at " + coords_text(at) + " reaches " +
               padding + " (keep the box inside the inner extent)");
    return false;
  });
}

// ---------------------------------------------------------- the inner coordinate's bytes

/// A thread, and the values of the parameters and loop variables, where a coordinate's
/// byte offset is not a multiple of the granule.
struct CoordWitness {
  ExprEnv env;
  std::int64_t value = 0;
  std::string bindings; ///< "n = 3, k = 1": the ranged names the witness sets
};

/// The parameters and loop variables `e` names, in order of first use.
void ranged_names(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == ExprKind::param || e.kind == ExprKind::loop) {
    const bool seen = std::any_of(out.begin(), out.end(), [&e](const Expr* x) {
      return x->kind == e.kind && x->name == e.name;
    });
    if (!seen)
      out.push_back(&e);
  }
  for (const ExprPtr& a : e.args)
    ranged_names(*a, out);
}

/// Looks for a witness: every issuing thread (when enumerable) at each value of the first
/// ranged name's declared range (up to `kMaxWitnessValues` of them; the others at their
/// lowest value), then at the test values. Nullopt when none was found in that budget.
/// `from_top`: the first ranged name's values are tried from the highest down instead.
template <class Bad>
std::optional<CoordWitness> find_coord_witness(const BulkProofContext& c, const Expr& e,
                                               const LaunchBounds& lb, const Located<ExprPtr>* pred,
                                               Bad bad, bool from_top = false) {
  constexpr std::int64_t kMaxWitnessValues = 256;
  if (!enumerable(c.kernel))
    return std::nullopt;
  std::vector<const Expr*> names;
  ranged_names(e, names);
  const auto range_of = [&lb](const Expr& x) -> std::optional<Interval> {
    const auto& m = x.kind == ExprKind::param ? lb.params : lb.loops;
    const auto it = m.find(x.name);
    return it == m.end() ? std::nullopt : std::optional<Interval>(it->second);
  };
  std::int64_t first = 0, count = 1;
  if (!names.empty()) {
    const auto r = range_of(*names.front());
    if (!r)
      return std::nullopt;
    first = from_top ? r->hi : r->lo;
    count = std::min(r->hi - r->lo + 1, kMaxWitnessValues);
  }
  std::optional<CoordWitness> found;
  for (std::int64_t n = 0; n < count && !found; ++n) {
    const std::int64_t v = from_top ? first - n : first + n;
    for_each_issuer(c.kernel, pred, [&](ExprEnv env) {
      std::string bindings;
      for (std::size_t i = 0; i < names.size(); ++i) {
        const Expr& x = *names[i];
        const auto r = range_of(x);
        const std::int64_t value = i == 0 ? v : (r ? r->lo : 0);
        (x.kind == ExprKind::param ? env.params : env.loops)[x.name] = value;
        bindings += (i ? ", " : "") + x.name + " = " + std::to_string(value);
      }
      const auto value = evaluate(e, env);
      if (!value || !bad(*value))
        return true;
      found = CoordWitness{env, *value, bindings};
      return false;
    });
  }
  return found;
}

void check_inner_coord_align(const BulkProofContext& c, const TensorMapDesc& map,
                             const Located<ExprPtr>& e, std::size_t k, const LaunchBounds& lb,
                             const Located<ExprPtr>* pred) {
  const std::int64_t esize = size_bytes(map.dtype);
  const std::int64_t need = kTensorInnerCoordGranule / std::gcd(kTensorInnerCoordGranule, esize);
  const std::int64_t d = index_divisor(*e.value, lb);
  if (d % need == 0)
    return; // d == 0: the coordinate is always 0
  const std::string which =
      "the innermost coordinate (coordinate " + std::to_string(k) + ") '" + e.text + "'";
  const std::string rule = " must be a multiple of " + std::to_string(need) + " elements of " +
                           std::string(name(map.dtype)) + " (" +
                           std::to_string(kTensorInnerCoordGranule) +
                           " bytes: the H200 raises an illegal-instruction fault for any other "
                           "inner byte offset, negative ones included)";
  const auto w =
      find_coord_witness(c, *e.value, lb, pred, [need](std::int64_t v) { return v % need != 0; });
  std::string where;
  if (w)
    where = "; at " + thread_text(w->env) + (w->bindings.empty() ? "" : ", " + w->bindings) +
            " it is " + std::to_string(w->value) + " (" + std::to_string(w->value * esize) +
            " bytes)";
  else
    where = "; cannot prove it for every issuing thread, iteration and value of the declared "
            "ranges: it is only known to be a multiple of " +
            std::to_string(d) + " elements";
  report(c, DiagId::contract_tensor_inner_coord_align, e.pos, span_of(e), which + rule + where);
}

/// Each coordinate a signed 32-bit value (32-bit safe operations); a store's never
/// negative and never spilling.
void check_coords(const BulkProofContext& c, const TensorMapDesc& map,
                  const std::vector<Located<ExprPtr>>& coords, const Located<ExprPtr>* pred,
                  TensorAccess access) {
  const auto lb = issuing(c, pred);
  if (!lb)
    return; // no thread issues the copy
  bool ok = true;
  for (std::size_t k = 0; k < coords.size(); ++k) {
    const Located<ExprPtr>& e = coords[k];
    const std::size_t before = c.out.items().size();
    c.u32(*e.value, *lb, e.pos, span_of(e), "coordinate", false);
    const auto b = bounds(*e.value, *lb);
    const std::string which = "coordinate " + std::to_string(k) + " '" + e.text + "'";
    if (!b || !kS32.contains(b->lo) || !kS32.contains(b->hi)) {
      report(c, DiagId::contract_tensor_coord_range, e.pos, span_of(e),
             which + " must stay in " + interval_text(kS32) +
                 " (a signed 32-bit coordinate) for every issuing thread and value of the "
                 "declared ranges; its range is " +
                 interval_text(b));
      ok = false;
    } else if (access == TensorAccess::store && b->lo < 0) {
      report(c, DiagId::contract_tensor_store_negative, e.pos, span_of(e),
             which +
                 " of a tensor store must never be negative (a store's box starts inside "
                 "the tensor); its range is " +
                 interval_text(b));
      ok = false;
    }
    if (ok && c.out.items().size() == before && k + 1 == coords.size())
      check_inner_coord_align(c, map, e, k, *lb, pred);
    ok = ok && c.out.items().size() == before;
  }
  if (ok && access == TensorAccess::store)
    check_store_spill(c, map, coords, *lb, pred);
}

/// An im2col load's operand `e` (what `which` names) stays in `range` for every issuing
/// thread and value of the declared ranges: by its interval, else the first thread and value
/// where it leaves the range, else "cannot prove".
void check_im2col_range(const BulkProofContext& c, const Located<ExprPtr>& e, DiagId id,
                        const std::string& which, Im2colRange range, const std::string& why,
                        const LaunchBounds& lb, const Located<ExprPtr>* pred) {
  const auto b = bounds(*e.value, lb);
  if (b && range.holds(b->lo) && range.holds(b->hi))
    return;
  const auto bad = [range](std::int64_t v) { return !range.holds(v); };
  auto w = find_coord_witness(c, *e.value, lb, pred, bad);
  if (!w) // a range's upper end may lie beyond the values tried from below
    w = find_coord_witness(c, *e.value, lb, pred, bad, true);
  std::string where;
  if (w)
    where = "; at " + thread_text(w->env) + (w->bindings.empty() ? "" : ", " + w->bindings) +
            " it is " + std::to_string(w->value);
  else
    where = "; cannot prove it for every issuing thread, iteration and value of the declared "
            "ranges: its range is " +
            interval_text(b);
  report(c, id, e.pos, span_of(e),
         which + " must stay in " + std::to_string(range.lo) + ".." + std::to_string(range.hi) +
             " (" + why + ")" + where);
}

/// An im2col load's rules: each offset in its rank's range, each spatial coordinate (the
/// filter base) inside the map's bounding box.
void check_im2col_operands(const BulkProofContext& c, const TensorMapDesc& map,
                           const std::vector<Located<ExprPtr>>& coords,
                           const std::vector<Located<ExprPtr>>& offsets,
                           const Located<ExprPtr>* pred) {
  const auto lb = issuing(c, pred);
  if (!lb)
    return;
  const std::string rank = std::to_string(map.rank()) + "-D";
  for (std::size_t s = 0; s < offsets.size(); ++s) {
    c.u32(*offsets[s].value, *lb, offsets[s].pos, span_of(offsets[s]), "offset", false);
    check_im2col_range(c, offsets[s], DiagId::contract_im2col_offset_range,
                       "offset " + std::to_string(s) + " '" + offsets[s].text + "'",
                       im2col_offset_range(map.rank()),
                       "an unsigned offset of a " + rank + " im2col load", *lb, pred);
  }
  for (std::size_t s = 0; s < im2col_spatial(map) && s + 1 < coords.size(); ++s) {
    const Located<ExprPtr>& e = coords[s + 1];
    check_im2col_range(
        c, e, DiagId::contract_im2col_base_outside,
        "coordinate " + std::to_string(s + 1) + " '" + e.text + "'", im2col_box(map, s),
        "the filter base lies in the bounding box: lower_corner[" + std::to_string(s) +
            "] .. dim - 1 + upper_corner[" + std::to_string(s) + "]",
        *lb, pred);
  }
}

const TensorMapDesc* map_of(const BulkProofContext& c, const Located<std::string>& tensor) {
  const TensorDecl* d = c.kernel.find_tensor(tensor.value);
  return d != nullptr && d->map ? &*d->map : nullptr; // the builder refuses a tensor without
}

} // namespace bulk_proof

std::int64_t known_divisor(const Expr& e) {
  const auto arg = [&e](std::size_t i) { return known_divisor(*e.args[i]); };
  switch (e.kind) {
  case ExprKind::constant:
    return e.value == std::numeric_limits<std::int64_t>::min() ? 1 : std::llabs(e.value);
  case ExprKind::select:
    return std::gcd(arg(1), arg(2));
  case ExprKind::unary:
    return e.op == ExprOp::neg ? arg(0) : 1;
  case ExprKind::binary:
    break;
  default:
    return 1;
  }
  switch (e.op) {
  case ExprOp::add:
  case ExprOp::sub:
    return std::gcd(arg(0), arg(1));
  case ExprOp::mul: {
    const std::int64_t a = arg(0), b = arg(1);
    if (a == 0 || b == 0)
      return 0;
    return bulk_proof::product_divisor(a, b);
  }
  case ExprOp::shl: {
    const Expr& by = *e.args[1];
    const std::int64_t a = arg(0);
    if (by.kind != ExprKind::constant || by.value < 0 || by.value > 32)
      return a == 0 ? 0 : 1;
    return bulk_proof::product_divisor(a, std::int64_t{1} << by.value);
  }
  default:
    return 1;
  }
}

std::optional<std::int64_t> contiguous_bytes(const View& v) {
  std::int64_t bytes = size_bytes(v.dtype);
  for (std::size_t i = v.axes.size(); i-- > 0;) {
    if (v.axes[i].size == 1)
      continue;
    if (v.axes[i].stride_bytes != bytes)
      return std::nullopt;
    bytes *= v.axes[i].size;
  }
  return bytes;
}

bool store_spills(const TensorMapDesc& map, std::span<const std::int64_t> coords) {
  const std::int64_t last = bulk_proof::last_spill_element(map);
  if (last < 0)
    return false;
  const std::vector<std::int64_t> extent = box_extent(map);
  const std::size_t inner = map.rank() - 1;
  const std::int64_t x0 = coords[inner];
  const std::int64_t x1 = x0 + extent[inner] - 1;
  if (std::max(x0, map.global_dims[inner]) > std::min(x1, last))
    return false;
  for (std::size_t k = 0; k < inner; ++k) {
    // Some box index i < extent with 0 <= coords[k] + i * stride < dim.
    const std::int64_t s = map.element_strides[k];
    const std::int64_t i0 = coords[k] >= 0 ? 0 : (-coords[k] + s - 1) / s;
    if (i0 >= extent[k] || coords[k] + i0 * s >= map.global_dims[k])
      return false;
  }
  return true;
}

void check_bulk_load(const BulkProofContext& c, const BulkLoadOp& op) {
  bulk_proof::check_bulk_pair(c, op.dst, op.src, op.pred ? &*op.pred : nullptr);
}

void check_bulk_store(const BulkProofContext& c, const BulkStoreOp& op) {
  bulk_proof::check_bulk_pair(c, op.dst, op.src, op.pred ? &*op.pred : nullptr);
}

void check_bulk_peer(const BulkProofContext& c, const BulkCopyPeerOp& op) {
  bulk_proof::check_bulk_pair(c, op.dst, op.src, op.pred ? &*op.pred : nullptr);
}

void check_bulk_reduce(const BulkProofContext& c, const BulkReduceOp& op, const SourcePos& at) {
  const View& dst = op.dst.value;
  const View& src = op.src.value;
  if (dst.dtype != src.dtype) {
    bulk_proof::report(c, DiagId::contract_reduce_dtype, op.src.pos, bulk_proof::span_of(op.src),
                       "bulk_reduce combines elements of one type: src is " +
                           std::string(name(src.dtype)) + ", dst is " +
                           std::string(name(dst.dtype)));
    return;
  }
  if (!reduce_ptx_type(op.reduce, dst.dtype)) {
    const SourcePos& pos = op.reduce_pos.line != 0 ? op.reduce_pos : at;
    const std::string kind(name_of(reduce_kind_names, op.reduce));
    bulk_proof::report(
        c, DiagId::contract_reduce_type, pos, static_cast<std::uint32_t>(kind.size() + 2),
        "cp.reduce.async.bulk has no '" + kind + "' of " + std::string(name(dst.dtype)) +
            " elements (add: u32 s32 u64 f16 bf16 f32 f64; min, max: u32 s32 u64 s64 f16 "
            "bf16; inc, dec: u32; and, or, xor: 32- and 64-bit integers)");
    return;
  }
  bulk_proof::check_bulk_pair(c, op.dst, op.src, op.pred ? &*op.pred : nullptr);
}

void check_expect_tx(const BulkProofContext& c, const ExpectTxOp& op) {
  const Located<ExprPtr>* pred = op.pred ? &*op.pred : nullptr;
  if (pred != nullptr)
    c.u32(*pred->value, c.bounds, pred->pos, bulk_proof::span_of(*pred), "pred", true);
  const auto lb = bulk_proof::issuing(c, pred);
  if (!lb)
    return;
  const std::size_t before = c.out.items().size();
  c.u32(*op.bytes.value, *lb, op.bytes.pos, bulk_proof::span_of(op.bytes), "bytes", false);
  if (c.out.items().size() != before)
    return;
  const auto b = bounds(*op.bytes.value, *lb);
  if (b && b->lo >= 0 && b->hi <= ptx::max_tx_count)
    return;
  bulk_proof::report(
      c, DiagId::contract_expect_tx_range, op.bytes.pos, bulk_proof::span_of(op.bytes),
      "expect_tx's bytes '" + op.bytes.text + "' must stay in 0.." +
          std::to_string(ptx::max_tx_count) +
          " (the transaction count's range) for every issuing thread and value of the "
          "declared ranges; its range is " +
          bulk_proof::interval_text(b));
}

namespace bulk_proof {

/// A tensor load's or store's proofs: its pred, its shared side (`role`) and its coordinates
/// through the tensor's map.
void check_tensor_copy(const BulkProofContext& c, const Located<std::string>& tensor,
                       const Located<View>& shared, std::string_view role,
                       const std::optional<Located<ExprPtr>>& op_pred,
                       const std::vector<Located<ExprPtr>>& coords, TensorAccess access) {
  const TensorMapDesc* map = map_of(c, tensor);
  if (map == nullptr)
    return;
  const Located<ExprPtr>* pred = op_pred ? &*op_pred : nullptr;
  if (pred != nullptr)
    c.u32(*pred->value, c.bounds, pred->pos, span_of(*pred), "pred", true);
  check_tensor_shared(c, *map, shared, role, pred);
  check_coords(c, *map, coords, pred, access);
}

} // namespace bulk_proof

void check_tensor_load(const BulkProofContext& c, const TensorLoadOp& op) {
  bulk_proof::check_tensor_copy(c, op.tensor, op.dst, "dst", op.pred, op.coords,
                                TensorAccess::load);
  const TensorMapDesc* map = bulk_proof::map_of(c, op.tensor);
  if (map != nullptr && map->is_im2col() && op.offsets)
    bulk_proof::check_im2col_operands(c, *map, op.coords, *op.offsets,
                                      op.pred ? &*op.pred : nullptr);
}

void check_tensor_store(const BulkProofContext& c, const TensorStoreOp& op) {
  bulk_proof::check_tensor_copy(c, op.tensor, op.src, "src", op.pred, op.coords,
                                TensorAccess::store);
}

void check_tensor_reduce(const BulkProofContext& c, const TensorReduceOp& op, const SourcePos& at) {
  const TensorDecl* d = c.kernel.find_tensor(op.tensor.value);
  if (d == nullptr || !d->map)
    return; // the builder refused it
  const DType elem = d->tensor.dtype;
  const View& src = op.src.value;
  if (src.dtype != elem) {
    bulk_proof::report(c, DiagId::contract_reduce_dtype, op.src.pos, bulk_proof::span_of(op.src),
                       "tensor_reduce combines elements of its map's type: src is " +
                           std::string(name(src.dtype)) + ", the map of '" + op.tensor.value +
                           "' is " + std::string(name(elem)));
    return;
  }
  if (!tensor_reduce_ptx_type(op.reduce, elem)) {
    const SourcePos& pos = op.reduce_pos.line != 0 ? op.reduce_pos : at;
    const std::string kind(name_of(reduce_kind_names, op.reduce));
    bulk_proof::report(
        c, DiagId::contract_tensor_reduce_type, pos, static_cast<std::uint32_t>(kind.size() + 2),
        "cp.reduce.async.bulk.tensor has no '" + kind + "' of " + std::string(name(elem)) +
            " elements (the map of '" + op.tensor.value +
            "'; add: u32 s32 u64 f16 bf16 f32; min, max: u32 s32 u64 s64 f16 bf16; inc, dec: "
            "u32; and, or, xor: 32- and 64-bit integers)");
    return;
  }
  bulk_proof::check_tensor_copy(c, op.tensor, op.src, "src", op.pred, op.coords,
                                TensorAccess::store);
}

void check_swizzled_elements(const BulkProofContext& c, const Located<View>& lv,
                             std::string_view role) {
  const View& v = lv.value;
  if (v.tensor->swizzle == TensorMapSwizzle::none)
    return;
  // Every element starts at offset + a multiple of g (mod 16): at worst at residue
  // r + 16 - g, whose element ends inside the chunk exactly when r + elem <= g.
  std::int64_t g = kSwizzleChunkBytes;
  for (const ViewAxis& a : v.axes)
    if (a.size > 1)
      g = std::gcd(g, std::llabs(a.stride_bytes));
  for (const RuntimeTerm& t : v.terms)
    g = std::gcd(g, bulk_proof::product_divisor(known_divisor(*t.index), t.stride_bytes));
  const std::int64_t elem = size_bytes(v.dtype);
  const std::int64_t r = ((v.offset_bytes % g) + g) % g;
  if (elem <= kSwizzleChunkBytes && r + elem <= g)
    return;
  const std::int64_t worst = std::min(r + kSwizzleChunkBytes - g, kSwizzleChunkBytes - 1);
  bulk_proof::report(
      c, DiagId::contract_swizzle_access, lv.pos, bulk_proof::span_of(lv),
      std::string(role) + " " + v.str() + ": an element (" + std::string(name(v.dtype)) + ", " +
          std::to_string(elem) + " bytes) may start at byte " + std::to_string(worst) +
          " of a 16-byte chunk of the " + std::string(name(v.tensor->swizzle)) +
          "-swizzled tensor '" + v.tensor->name +
          "' and end in the next chunk, which the swizzle moves elsewhere (its offsets are "
          "known modulo " +
          std::to_string(g) + " bytes: keep each element inside one 16-byte chunk)");
}

// --- tensor maps in memory: the slot and the edited values -------------------------------

namespace bulk_proof {

/// A map slot: 128 contiguous bytes, 128-byte aligned for every issuing thread, inside its
/// tensor; in global memory where `global_only`.
void check_map_slot(const BulkProofContext& c, const Located<View>& slot, std::string_view role,
                    const Located<ExprPtr>* pred, bool global_only) {
  const View& v = slot.value;
  if (global_only && v.tensor->space != Space::global) {
    report(c, DiagId::contract_tensormap_slot, slot.pos, span_of(slot),
           std::string(role) + " '" + v.tensor->name +
               "' is shared memory: a tensor copy and the tensormap-proxy acquire take a map "
               "in global memory (tensormap_copy with src copies a shared slot there)");
    return;
  }
  const auto bytes = contiguous_bytes(v);
  if (!bytes || *bytes != kTensorMapBytes) {
    report(c, DiagId::contract_tensormap_slot, slot.pos, span_of(slot),
           std::string(role) + " " + v.str() + " must be the 128 contiguous bytes of one map" +
               (bytes ? "; it has " + std::to_string(*bytes) : std::string("; it has gaps")));
    return;
  }
  const auto bad =
      find_misaligned(c, v, pred, [](std::int64_t a) { return a % kTensorMapSlotAlign == 0; });
  if (bad) {
    report(c, DiagId::contract_tensormap_slot, slot.pos, span_of(slot),
           bad->base ? std::string(role) + ": tensor '" + v.tensor->name + "' is declared " +
                           std::to_string(bad->align) +
                           "-byte aligned; a map slot is 128-byte aligned (declare align = 128)"
                     : std::string(role) + " " + v.str() + " must start 128-byte aligned: " +
                           misaligned_text(*bad, "a CUtensorMap is 128-byte aligned"));
    return;
  }
  c.in_bounds(slot, role, pred);
}

/// A global dim's or stride's new value: every value of `value` under the issuing threads'
/// bounds in lo..hi and a multiple of `multiple`.
void check_map_value(const BulkProofContext& c, const Located<ExprPtr>& value,
                     const Located<ExprPtr>* pred, std::int64_t lo, std::int64_t hi,
                     std::int64_t multiple, std::string_view what) {
  const auto lb = issuing(c, pred);
  if (!lb)
    return;
  const auto b = bounds(*value.value, *lb);
  const std::int64_t d = known_divisor(*value.value);
  if (b && b->lo >= lo && b->hi <= hi && (d == 0 || d % multiple == 0))
    return;
  std::string why;
  if (!b || b->lo < lo || b->hi > hi)
    why = "its range is " + interval_text(b) +
          (b && b->lo < lo ? " (from " + std::to_string(b->lo) + ")"
           : b             ? " (up to " + std::to_string(b->hi) + ")"
                           : std::string());
  else
    why = "it is only known to be a multiple of " + std::to_string(d);
  report(c, DiagId::contract_tensormap_value, value.pos, span_of(value),
         std::string(what) + " '" + value.text + "' must be in " + std::to_string(lo) + ".." +
             std::to_string(hi) +
             (multiple > 1 ? " and a multiple of " + std::to_string(multiple) : std::string()) +
             " for every issuing thread and value of the declared ranges: " + why);
}

/// The new base address: a global tensor of the map's dtype, 16-byte aligned, holding at
/// least the bytes the map's extents reach.
void check_map_address(const BulkProofContext& c, const TensormapReplaceOp& op,
                       const TensorMapDesc& map) {
  const Located<std::string>& a = *op.address;
  const TensorDecl* d = c.kernel.find_tensor(a.value);
  std::string why;
  if (d == nullptr || d->tensor.space != Space::global)
    why = "'" + a.value + "' is not a global tensor";
  else if (d->tensor.dtype != map.dtype)
    why = "'" + a.value + "' holds " + std::string(name(d->tensor.dtype)) + ", the map " +
          std::string(name(map.dtype));
  else if (d->tensor.align % kTensorMapGranule != 0)
    why = "'" + a.value + "' is declared " + std::to_string(d->tensor.align) +
          "-byte aligned; a map's global address is 16-byte aligned";
  if (why.empty())
    return;
  report(c, DiagId::contract_tensormap_value, a.pos, span_of(a),
         "tensormap_replace global_address: " + why);
}

} // namespace bulk_proof

void check_tensormap_copy(const BulkProofContext& c, const TensormapCopyOp& op) {
  const Located<ExprPtr>* pred = op.pred ? &*op.pred : nullptr;
  bulk_proof::check_map_slot(c, op.dst, "tensormap_copy dst", pred, op.src.has_value());
  if (op.src && op.src->value.tensor->space != Space::shared)
    bulk_proof::report(c, DiagId::contract_tensormap_slot, op.src->pos,
                       bulk_proof::span_of(*op.src),
                       "tensormap_copy src '" + op.src->value.tensor->name +
                           "' must be shared memory (tensormap.cp_fenceproxy copies a map from "
                           "shared::cta to global)");
  else if (op.src)
    bulk_proof::check_map_slot(c, *op.src, "tensormap_copy src", pred, false);
}

void check_tensormap_replace(const BulkProofContext& c, const TensormapReplaceOp& op) {
  const Located<ExprPtr>* pred = op.pred ? &*op.pred : nullptr;
  bulk_proof::check_map_slot(c, op.map, "tensormap_replace map", pred, false);
  const TensorMapDesc* map = bulk_proof::map_of(c, op.tensor);
  if (map == nullptr)
    return;
  if (op.field == TensormapField::global_address) {
    bulk_proof::check_map_address(c, op, *map);
    return;
  }
  const auto rank = static_cast<std::int64_t>(map->rank());
  const bool stride = op.field == TensormapField::global_stride;
  // A map has rank - 1 strides: the innermost's is the element size.
  const std::int64_t dims = stride ? rank - 1 : rank;
  if (op.dim < 0 || op.dim >= dims) {
    bulk_proof::report(c, DiagId::contract_tensormap_value, op.dim_pos, 1,
                       "tensormap_replace dim " + std::to_string(op.dim) + " of " +
                           op.tensor.value + "'s rank-" + std::to_string(rank) + " map: " +
                           (stride
                                ? "a global stride is one of dims 0.." + std::to_string(rank - 2) +
                                      " (the innermost's is the element size)"
                                : "a global dim is one of dims 0.." + std::to_string(rank - 1)));
    return;
  }
  if (stride)
    bulk_proof::check_map_value(c, *op.value, pred, kTensorMapGranule, kTensorMapStrideLimit - 1,
                                kTensorMapGranule, "the global stride");
  else
    // The new dim is a .b32 operand: at most 2^32 - 1 (an encoded map allows 2^32).
    bulk_proof::check_map_value(c, *op.value, pred, 1, kTensorMapMaxGlobalDim - 1, 1,
                                "the global dim");
}

void check_tensormap_fence(const BulkProofContext& c, const TensormapFenceOp& op) {
  const Located<ExprPtr>* pred = op.pred ? &*op.pred : nullptr;
  bulk_proof::check_map_slot(c, op.map, "tensormap_fence map", pred,
                             op.sem == TensormapSem::acquire);
}

void check_tensor_copy_map(const BulkProofContext& c, const std::optional<Located<View>>& map,
                           const std::optional<Located<ExprPtr>>& pred) {
  if (map)
    bulk_proof::check_map_slot(c, *map, "map", pred ? &*pred : nullptr, true);
}

} // namespace ptxgen::tile
