#include "driver/reference/expect.hpp"

#include "driver/reference/affine_view.hpp"
#include "driver/reference/naive_expr.hpp"
#include "driver/reference/naive_view.hpp"
#include "emitter/support/overloaded.hpp"
#include "emitter/support/result.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <variant>

namespace ptxgen::driver {

namespace {

// ---------------------------------------------------------------- element values

using Signedness = NaiveDType::Sign;

std::vector<std::uint8_t> little_endian(std::uint64_t bits, unsigned n) {
  std::vector<std::uint8_t> out(n);
  for (unsigned i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(bits >> (8 * i));
  return out;
}

std::uint64_t from_little_endian(std::span<const std::uint8_t> bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = bytes.size(); i-- > 0;)
    v = (v << 8) | bytes[i];
  return v;
}

/// Whether an integer type of `bytes` bytes holds v.
bool integer_fits(Signedness s, unsigned bytes, std::int64_t v) {
  if (bytes >= 8)
    return s != Signedness::unsigned_ || v >= 0;
  const std::int64_t half = std::int64_t{1} << (8 * bytes - 1);
  switch (s) {
  case Signedness::unsigned_:
    return v >= 0 && v < 2 * half;
  case Signedness::signed_:
    return v >= -half && v < half;
  case Signedness::untyped:
    return v >= -half && v < 2 * half;
  }
  unreachable("integer_fits(): not a Signedness");
}

/// IEEE binary16 bits of v, which must be exactly representable (checked by the caller).
std::uint16_t exact_half_bits(std::int64_t v) {
  if (v == 0)
    return 0;
  const std::uint16_t sign = v < 0 ? std::uint16_t{0x8000} : std::uint16_t{0};
  const std::uint64_t m = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  const int e = 63 - std::countl_zero(m); // m in [2^e, 2^(e+1))
  const std::uint64_t sig = e <= 10 ? m << (10 - e) : m >> (e - 10);
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | (sig & 0x3FF));
}

double half_value(std::uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exp = (h >> 10) & 0x1F;
  const int mant = h & 0x3FF;
  if (exp == 0)
    return sign * std::ldexp(mant, -24);
  if (exp == 31)
    return mant ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(1024 + mant, exp - 25);
}

std::string shortest(double d) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return ec == std::errc() ? std::string(buf, p) : std::string("?");
}

// ---------------------------------------------------------------- views, mapped

/// `v` at one run's values: each slice bound that names parameters replaced by its value,
/// and each open end by its axis's size at those values (the axis may have moved), so
/// that the reference's view code, which knows constant slices only, replays it.
Status bind_slices(const tile::View& v, const tile::ExprEnv& env, tile::View& out) {
  out = v;
  out.steps.clear();
  for (const tile::ViewStep& step : v.steps) {
    const auto* sub = std::get_if<tile::SubStep>(&step);
    const bool moves =
        sub && std::any_of(sub->entries.begin(), sub->entries.end(), [](const tile::SubEntry& e) {
          return e.is_slice && (e.symbolic() || e.open_end);
        });
    if (!moves) {
      out.steps.push_back(step);
      continue;
    }
    const NaivePlan before = naive_plan(out);
    if (!before.ok())
      return Failure{before.error};
    tile::SubStep bound = *sub;
    for (std::size_t a = 0; a < bound.entries.size() && a < before.shape().size(); ++a) {
      tile::SubEntry& e = bound.entries[a];
      if (!e.is_slice)
        continue;
      const auto begin = e.begin_expr ? naive_evaluate(*e.begin_expr, env) : e.begin;
      const auto end = e.end_expr   ? naive_evaluate(*e.end_expr, env)
                       : e.open_end ? before.shape()[a]
                                    : e.end;
      if (!begin || !end)
        return Failure{"a slice bound of axis " + std::to_string(a) + " does not evaluate"};
      e.begin = *begin;
      e.end = *end;
      e.begin_expr = e.end_expr = nullptr;
    }
    out.steps.emplace_back(std::move(bound));
  }
  return {};
}

/// One side of an expectation at one run's parameter values, mapped to its tensor's bytes
/// as the reference maps an op's view: its plan (naive_plan) and, where the view has one,
/// its affine form; else naive_locate, element by element.
struct Side {
  const tile::TensorDecl* decl = nullptr;
  tile::View view; ///< bind_slices' view at the run's values
  NaivePlan plan;
  std::optional<AffineForm> form;
  tile::ExprEnv env;
  std::string error; ///< non-empty: the view cannot be mapped (why)

  const std::vector<std::int64_t>& shape() const { return plan.shape(); }
  unsigned element_bytes() const { return plan.element_bytes(); }
};

Side map_side(const tile::Kernel& k, const tile::View& v, const tile::ExprEnv& env) {
  Side s;
  if (v.tensor)
    s.decl = k.find_tensor(v.tensor->name);
  if (!s.decl) {
    s.error = "its view names no tensor of the kernel";
    return s;
  }
  if (Status bound = bind_slices(v, env, s.view); !bound) {
    s.error = bound.error();
    return s;
  }
  s.plan = naive_plan(s.view);
  if (!s.plan.ok()) {
    s.error = s.plan.error;
    return s;
  }
  s.form = affine_form(s.plan, s.view, env);
  s.env = env;
  return s;
}

/// The tensor byte offset of each byte of view element `c`, written into `offsets`, or why
/// there is none (a coordinate outside its axis at some level).
Status locate(const Side& s, const std::vector<std::int64_t>& c,
              std::vector<std::int64_t>& offsets) {
  offsets.clear();
  if (s.form) {
    const std::int64_t first = s.form->offset(c);
    for (std::int64_t b = 0; b < s.form->element_bytes; ++b)
      offsets.push_back(first + b);
    return {};
  }
  NaiveLocation loc = naive_locate(s.plan, s.view, s.env, c);
  if (!loc.in_bounds || loc.offsets.empty())
    return Failure{loc.error.empty() ? std::string("it has no bytes") : loc.error};
  offsets = std::move(loc.offsets);
  return {};
}

/// "[3, 16] of 1-byte elements": a side's shape at the run's values.
std::string shape_of(const Side& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.shape().size(); ++i)
    t += (i ? ", " : "") + std::to_string(s.shape()[i]);
  return t + "] of " + std::to_string(s.element_bytes()) + "-byte elements";
}

std::string coords_text(const std::vector<std::int64_t>& c) {
  std::string s;
  for (std::size_t i = 0; i < c.size(); ++i)
    s += (i ? ", " : "") + std::to_string(c[i]);
  return s;
}

/// The tensor element a side's byte `offset` lies in, for messages: "B[2, 3]", or "byte 1 of
/// B[2, 3]" inside it (a dtype view of narrower elements).
std::string tensor_element(const Side& s, std::int64_t offset) {
  const std::int64_t eb = naive_dtype_bytes(s.decl->tensor.dtype);
  const std::vector<std::int64_t>& shape = s.decl->tensor.shape;
  std::vector<std::int64_t> c(shape.size(), 0);
  std::int64_t flat = offset / eb;
  for (std::size_t a = shape.size(); a-- > 0;) {
    if (shape[a] > 0) {
      c[a] = flat % shape[a];
      flat /= shape[a];
    }
  }
  const std::string element = s.decl->tensor.name + "[" + coords_text(c) + "]";
  return offset % eb ? "byte " + std::to_string(offset % eb) + " of " + element : element;
}

/// The bytes of `side`'s tensor in `bytes`, checked for size.
Fallible<const std::vector<std::uint8_t>*> tensor_bytes(const Side& side, const GlobalBytes& bytes,
                                                        std::string_view which) {
  const std::string& name = side.decl->tensor.name;
  auto it = bytes.find(name);
  std::int64_t elements = 1;
  for (std::int64_t n : side.decl->tensor.shape)
    elements *= n;
  const auto want = static_cast<std::size_t>(elements) * naive_dtype_bytes(side.decl->tensor.dtype);
  if (it == bytes.end() || it->second.size() != want)
    return Failure{"no " + std::string(which) + " bytes of tensor " + name + " (" +
                   std::to_string(want) + " expected)"};
  return &it->second;
}

/// The right side of one expectation, ready to give the expected bytes of element c.
struct Expected {
  const Side* side = nullptr;                        ///< views and sentinel: whose bytes
  const std::vector<std::uint8_t>* source = nullptr; ///< the bytes read through `side`
  std::vector<std::uint8_t> value;                   ///< a constant's bytes
  std::string what;                                  ///< "A", "0", "its initial value"
  /// Two whole tensors of one byte size but another shape or element type: compared byte
  /// for byte, the right side's bytes at the left side's offsets.
  bool flat = false;
};

/// Copies the bytes at `offsets` of `bytes` into `out`; false when one lies outside it.
bool gather(const std::vector<std::uint8_t>& bytes, const std::vector<std::int64_t>& offsets,
            std::vector<std::uint8_t>& out) {
  out.clear();
  for (std::int64_t o : offsets) {
    if (o < 0 || static_cast<std::size_t>(o) >= bytes.size())
      return false;
    out.push_back(bytes[static_cast<std::size_t>(o)]);
  }
  return true;
}

/// Compares `lhs`'s elements, row-major over its shape, with `want`'s, into `r`: element c
/// of the left side against element c of the right (the same bytes for the sentinel and
/// flat comparisons).
void compare_elements(const tile::Expectation& x, const Side& lhs,
                      const std::vector<std::uint8_t>& actual, const Expected& want,
                      ExpectationResult& r) {
  const std::vector<std::int64_t>& shape = lhs.shape();
  const tile::DType dtype = lhs.plan.dtype;
  std::vector<std::int64_t> c(shape.size(), 0);
  const bool empty = std::any_of(shape.begin(), shape.end(), [](std::int64_t n) { return n <= 0; });
  const bool own_offsets = want.side == &lhs || want.flat;
  std::vector<std::int64_t> at, from;
  std::vector<std::uint8_t> got, expected = want.value;
  for (bool more = !empty; more;) {
    Status ok = locate(lhs, c, at);
    if (ok && want.side && !own_offsets)
      ok = locate(*want.side, c, from);
    if (ok && own_offsets)
      from = at;
    if (ok && (!gather(actual, at, got) || (want.side && !gather(*want.source, from, expected))))
      ok = Failure{"its bytes lie outside the tensor"};
    if (!ok) {
      r.first = "element (" + coords_text(c) + "): " + ok.error();
      return;
    }
    ++r.elements;
    if (got != expected && r.differing++ == 0) {
      r.first = "element (" + coords_text(c) + ") of " + x.lhs.text + " (" +
                tensor_element(lhs, at.front()) + ") is " + describe_element(dtype, got) +
                ", expected " + describe_element(dtype, expected) + " (" + want.what;
      if (want.flat)
        r.first += ": its bytes " + std::to_string(at.front()) + ".." +
                   std::to_string(at.front() + static_cast<std::int64_t>(at.size()) - 1);
      else if (want.side && want.side != &lhs)
        r.first += ": " + tensor_element(*want.side, from.front());
      r.first += ")";
    }
    // Next coordinate, row-major.
    more = false;
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++c[a] < shape[a]) {
        more = true;
        break;
      }
      c[a] = 0;
    }
  }
}

ExpectationResult check_one(const tile::Kernel& k, std::size_t index, const GlobalBytes& initial,
                            const GlobalBytes& final_bytes, const tile::ExprEnv& env) {
  const tile::Expectation& x = k.expectations[index];
  ExpectationResult r;
  r.index = index;
  const Side lhs = map_side(k, x.lhs.value, env);
  if (!lhs.error.empty()) {
    r.first = "the left side cannot be evaluated: " + lhs.error;
    return r;
  }
  // The bytes of a side's tensor, or nullptr with the reason in r.first.
  auto bytes_of = [&r](const Side& side, const GlobalBytes& bytes, std::string_view which) {
    auto found = tensor_bytes(side, bytes, which);
    if (!found)
      r.first = found.error();
    return found ? *found : nullptr;
  };
  const auto* actual = bytes_of(lhs, final_bytes, "final");
  if (!actual)
    return r;
  Side rhs_side;
  Expected want;
  std::visit(overloaded{
                 [&](const tile::Located<tile::View>& v) {
                   rhs_side = map_side(k, v.value, env);
                   want.side = &rhs_side;
                   want.what = v.text;
                   if (!rhs_side.error.empty())
                     r.first = "the right side cannot be evaluated: " + rhs_side.error;
                   else
                     want.source = bytes_of(rhs_side, final_bytes, "final");
                 },
                 [&](std::int64_t v) {
                   want.what = std::to_string(v);
                   if (auto b = expect_value_bytes(x.lhs.value.dtype, v))
                     want.value = std::move(*b);
                   else
                     r.first = want.what + " is no value of the left side's element type";
                 },
                 [&](const tile::ExpectSentinel&) {
                   want.side = &lhs;
                   want.what = "its initial value";
                   want.source = bytes_of(lhs, initial, "initial");
                 },
             },
             x.rhs);
  if (!r.first.empty())
    return r;
  const bool same_shape = want.side && want.side->shape() == lhs.shape() &&
                          want.side->element_bytes() == lhs.element_bytes();
  want.flat = want.side && !same_shape && want.side->view.steps.empty() && lhs.view.steps.empty();
  if (want.flat && want.source->size() != actual->size()) {
    r.first = "the two tensors differ in byte size";
    return r;
  }
  if (want.side && !same_shape && !want.flat) {
    r.first = "the two sides differ in shape or element size: " + shape_of(lhs) + " and " +
              shape_of(*want.side);
    return r;
  }
  compare_elements(x, lhs, *actual, want, r);
  return r;
}

} // namespace

std::optional<std::vector<std::uint8_t>> expect_value_bytes(tile::DType dtype, std::int64_t v) {
  const unsigned n = tile::size_bytes(dtype);
  const NaiveDType& type = naive_dtype(dtype);
  const unsigned precision = type.significand_bits;
  if (precision == 0) {
    if (!integer_fits(type.sign, n, v))
      return std::nullopt;
    return little_endian(static_cast<std::uint64_t>(v), n);
  }
  // Exact iff the magnitude's odd part fits the significand (and, for float16, the
  // magnitude is at most 65504, its largest finite value).
  const std::uint64_t m = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  if (m != 0 && (m >> std::countr_zero(m)) >= (std::uint64_t{1} << precision))
    return std::nullopt;
  if (dtype == tile::DType::float16)
    return m > 65504 ? std::nullopt : std::optional(little_endian(exact_half_bits(v), 2));
  if (dtype == tile::DType::bfloat16) // exact, so the top half of the float32 is the value
    return little_endian(std::bit_cast<std::uint32_t>(static_cast<float>(v)) >> 16, 2);
  if (dtype == tile::DType::float32)
    return little_endian(std::bit_cast<std::uint32_t>(static_cast<float>(v)), 4);
  return little_endian(std::bit_cast<std::uint64_t>(static_cast<double>(v)), 8);
}

std::string describe_element(tile::DType dtype, std::span<const std::uint8_t> bytes) {
  const std::uint64_t bits = from_little_endian(bytes);
  const unsigned width = static_cast<unsigned>(bytes.size()) * 8;
  switch (dtype) {
  case tile::DType::float16:
    return shortest(half_value(static_cast<std::uint16_t>(bits)));
  case tile::DType::bfloat16:
    return shortest(std::bit_cast<float>(static_cast<std::uint32_t>(bits << 16)));
  case tile::DType::float32:
    return shortest(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  case tile::DType::float64:
    return shortest(std::bit_cast<double>(bits));
  case tile::DType::uint8:
  case tile::DType::uint16:
  case tile::DType::uint32:
  case tile::DType::uint64:
    return std::to_string(bits);
  case tile::DType::int8:
  case tile::DType::int16:
  case tile::DType::int32:
  case tile::DType::int64: {
    // Sign-extend from the element's width.
    const std::uint64_t sign = std::uint64_t{1} << (width - 1);
    const auto v = static_cast<std::int64_t>((bits ^ sign) - sign);
    return std::to_string(v);
  }
  case tile::DType::b8:
  case tile::DType::b16:
  case tile::DType::b32:
  case tile::DType::b64: {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s = "0x";
    for (unsigned d = width / 4; d-- > 0;)
      s += digits[(bits >> (4 * d)) & 15];
    return s;
  }
  }
  unreachable("describe_element(): not a DType");
}

std::vector<ExpectationResult> check_expectations(const tile::Kernel& k, const GlobalBytes& initial,
                                                  const GlobalBytes& final_bytes,
                                                  std::span<const std::uint64_t> values) {
  const tile::ExprEnv env = k.env_for(0, 0, values);
  std::vector<ExpectationResult> out;
  for (std::size_t i = 0; i < k.expectations.size(); ++i)
    out.push_back(check_one(k, i, initial, final_bytes, env));
  return out;
}

Diagnostics expectation_diagnostics(const tile::Kernel& k,
                                    const std::vector<ExpectationResult>& results) {
  Diagnostics ds;
  for (const ExpectationResult& r : results) {
    if (r.held() || r.index >= k.expectations.size())
      continue;
    const tile::Expectation& x = k.expectations[r.index];
    std::string message =
        "expectation '" + x.that.text + "' fails on the reference's result: " + r.first;
    if (r.differing > 0)
      message += "; " + std::to_string(r.differing) + " of " + std::to_string(r.elements) +
                 " element" + (r.elements == 1 ? "" : "s") + " differ";
    Diagnostic d(DiagId::check_expectation_failed, std::move(message));
    const tile::SourcePos& pos = x.lhs.pos;
    d.file = pos.file.empty() ? k.file : pos.file;
    d.line = pos.line;
    d.column = pos.column;
    d.source_line = pos.source_line;
    // Underline the left side when the line holds it where pos says (a one-line string).
    const std::string& text = x.lhs.text;
    if (pos.column >= 1 && pos.column - 1 <= pos.source_line.size() &&
        pos.source_line.compare(pos.column - 1, text.size(), text) == 0)
      d.length = static_cast<std::uint32_t>(std::max<std::size_t>(text.size(), 1));
    ds.add(std::move(d));
  }
  return ds;
}

} // namespace ptxgen::driver
