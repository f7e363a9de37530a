#include "driver/reference/expect.hpp"

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

// ---------------------------------------------------------------- views, replayed

/// One side of an expectation replayed over its `.sub[...]` steps at one run's parameter
/// values: the shape at every level (levels[0] the tensor's, levels.back() the view's).
struct Side {
  const tile::View* view = nullptr;
  const tile::TensorDecl* decl = nullptr;
  std::vector<std::vector<std::int64_t>> levels;
  std::vector<const tile::SubStep*> subs; ///< subs[i] turns levels[i] into levels[i + 1]
  /// starts[i][a]: entry a of subs[i] at the run's values, an index or a slice's begin.
  std::vector<std::vector<std::int64_t>> starts;
  unsigned element_bytes = 1;
  std::string error; ///< non-empty: the view cannot be replayed (why)
};

/// One `.sub[...]` of a side at `env`'s parameter values: the next level's shape (and the
/// entries' starts), or why an entry leaves its axis.
void replay_sub(Side& s, const tile::SubStep& sub, const tile::ExprEnv& env) {
  const std::vector<std::int64_t>& in = s.levels.back();
  std::vector<std::int64_t> out, starts;
  if (sub.entries.size() > in.size())
    s.error = "a .sub[] with more entries than axes";
  for (std::size_t a = 0; a < in.size() && s.error.empty(); ++a) {
    if (a >= sub.entries.size()) {
      out.push_back(in[a]);
      continue;
    }
    const tile::SubEntry& e = sub.entries[a];
    auto value = [&](const tile::ExprPtr& x, std::int64_t constant) {
      return x ? tile::evaluate(*x, env) : std::optional<std::int64_t>(constant);
    };
    const auto begin = e.is_slice ? value(e.begin_expr, e.begin) : value(e.index, 0);
    const auto end = value(e.end_expr, e.open_end ? in[a] : e.end);
    const std::string axis = "axis " + std::to_string(a) + " (size " + std::to_string(in[a]) + ")";
    if (!begin || !end)
      s.error = "an index or slice bound does not evaluate";
    else if (!e.is_slice && (*begin < 0 || *begin >= in[a]))
      s.error = "index " + std::to_string(*begin) + " is outside " + axis;
    else if (e.is_slice && (*begin < 0 || *end < *begin || *end > in[a]))
      s.error =
          "slice " + std::to_string(*begin) + ":" + std::to_string(*end) + " is outside " + axis;
    else if (e.is_slice)
      out.push_back(*end - *begin);
    starts.push_back(begin.value_or(0));
  }
  s.levels.push_back(std::move(out));
  s.subs.push_back(&sub);
  s.starts.push_back(std::move(starts));
}

Side replay(const tile::Kernel& k, const tile::View& v, const tile::ExprEnv& env) {
  Side s;
  s.view = &v;
  if (v.tensor)
    s.decl = k.find_tensor(v.tensor->name);
  if (!s.decl) {
    s.error = "its view names no tensor of the kernel";
    return s;
  }
  s.element_bytes = tile::size_bytes(s.decl->tensor.dtype);
  s.levels.push_back(s.decl->tensor.shape);
  for (const tile::ViewStep& step : v.steps) {
    std::visit(overloaded{
                   [&](const tile::SubStep& sub) { replay_sub(s, sub, env); },
                   [&](const tile::RearrangeStep&) {
                     s.error = "a rearrange step (expectations take .sub[...] only)";
                   },
                   [&](const tile::ReinterpretStep&) {
                     s.error = "a .view() step (expectations take .sub[...] only)";
                   },
               },
               step);
    if (!s.error.empty())
      return s;
  }
  return s;
}

/// The tensor coordinate of view coordinate `c`, written into `at`, or an error. `scratch`
/// only spares the allocations: the check locates every element of a side, in every run.
Status locate(const Side& s, const std::vector<std::int64_t>& c, std::vector<std::int64_t>& at,
              std::vector<std::int64_t>& scratch) {
  at = c;
  for (std::size_t level = s.subs.size(); level-- > 0;) {
    const tile::SubStep& sub = *s.subs[level];
    const std::vector<std::int64_t>& in_shape = s.levels[level];
    const std::vector<std::int64_t>& starts = s.starts[level];
    std::vector<std::int64_t>& in = scratch;
    in.clear();
    std::size_t next = 0;
    for (std::size_t a = 0; a < in_shape.size(); ++a) {
      if (a < sub.entries.size() && !sub.entries[a].is_slice) {
        in.push_back(starts.at(a));
      } else {
        const std::int64_t begin = a < sub.entries.size() ? starts.at(a) : std::int64_t{0};
        in.push_back(begin + at.at(next++));
      }
      if (in.back() < 0 || in.back() >= in_shape[a])
        return Failure{"coordinate " + std::to_string(in.back()) + " is outside axis " +
                       std::to_string(a) + " (size " + std::to_string(in_shape[a]) + ")"};
    }
    at.swap(in);
  }
  return {};
}

/// "[3, 16] of 1-byte elements": a side's shape at the run's values.
std::string shape_of(const Side& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.levels.back().size(); ++i)
    t += (i ? ", " : "") + std::to_string(s.levels.back()[i]);
  return t + "] of " + std::to_string(s.element_bytes) + "-byte elements";
}

std::int64_t flat_index(const std::vector<std::int64_t>& shape,
                        const std::vector<std::int64_t>& c) {
  std::int64_t flat = 0;
  for (std::size_t a = 0; a < shape.size(); ++a)
    flat = flat * shape[a] + c[a];
  return flat;
}

std::string coords_text(const std::vector<std::int64_t>& c) {
  std::string s;
  for (std::size_t i = 0; i < c.size(); ++i)
    s += (i ? ", " : "") + std::to_string(c[i]);
  return s;
}

/// The bytes of `side`'s tensor in `bytes`, checked for size.
Fallible<const std::vector<std::uint8_t>*> tensor_bytes(const Side& side, const GlobalBytes& bytes,
                                                        std::string_view which) {
  const std::string& name = side.decl->tensor.name;
  auto it = bytes.find(name);
  std::int64_t elements = 1;
  for (std::int64_t n : side.levels.front())
    elements *= n;
  const auto want = static_cast<std::size_t>(elements) * side.element_bytes;
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
};

ExpectationResult check_one(const tile::Kernel& k, std::size_t index, const GlobalBytes& initial,
                            const GlobalBytes& final_bytes, const tile::ExprEnv& env) {
  const tile::Expectation& x = k.expectations[index];
  ExpectationResult r;
  r.index = index;
  const Side lhs = replay(k, x.lhs.value, env);
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
                   rhs_side = replay(k, v.value, env);
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
  // Two whole tensors of the same byte size but another shape or element type are
  // compared byte for byte (flat), in the left side's elements.
  const bool same_shape = want.side && want.side->levels.back() == lhs.levels.back() &&
                          want.side->element_bytes == lhs.element_bytes;
  const bool flat = want.side && !same_shape && want.side->subs.empty() && lhs.subs.empty();
  if (flat && want.source->size() != actual->size()) {
    r.first = "the two tensors differ in byte size";
    return r;
  }
  if (want.side && !same_shape && !flat) {
    r.first = "the two sides differ in shape or element size: " + shape_of(lhs) + " and " +
              shape_of(*want.side);
    return r;
  }

  const std::vector<std::int64_t>& shape = lhs.levels.back();
  const tile::DType dtype = lhs.decl->tensor.dtype;
  const unsigned eb = lhs.element_bytes;
  std::vector<std::int64_t> c(shape.size(), 0);
  const bool empty = std::any_of(shape.begin(), shape.end(), [](std::int64_t n) { return n <= 0; });
  std::vector<std::int64_t> at, from, scratch;
  for (bool more = !empty; more;) {
    const Status at_ok = locate(lhs, c, at, scratch);
    const Status from_ok = want.side && !flat ? locate(*want.side, c, from, scratch) : Status();
    if (!at_ok || !from_ok) {
      r.first = "element (" + coords_text(c) + "): " + (!at_ok ? at_ok : from_ok).error();
      return r;
    }
    const std::int64_t offset = flat_index(lhs.levels.front(), at) * eb;
    const std::uint8_t* got = actual->data() + offset;
    const std::uint8_t* expected = want.value.data();
    if (flat)
      expected = want.source->data() + offset;
    else if (want.side)
      expected = want.source->data() + flat_index(want.side->levels.front(), from) * eb;
    ++r.elements;
    if (!std::equal(got, got + eb, expected)) {
      if (r.differing++ == 0) {
        r.first = "element (" + coords_text(c) + ") of " + x.lhs.text + " (" +
                  lhs.decl->tensor.name + "[" + coords_text(at) + "]) is " +
                  describe_element(dtype, {got, eb}) + ", expected " +
                  describe_element(dtype, {expected, eb}) + " (" + want.what;
        if (flat)
          r.first +=
              ": its bytes " + std::to_string(offset) + ".." + std::to_string(offset + eb - 1);
        else if (want.side && want.side != &lhs)
          r.first += ": " + want.side->decl->tensor.name + "[" + coords_text(from) + "]";
        r.first += ")";
      }
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
