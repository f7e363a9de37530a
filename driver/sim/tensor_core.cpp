// The tensor-core arithmetic and layouts (tensor_core.hpp).

#include "driver/sim/tensor_core.hpp"

#include "driver/sim/alu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptxgen::sim::tc {
namespace {

using ir::Elem;

struct ElemRow {
  std::string_view name;
  Elem elem;
  unsigned bits;
  bool integer;
};

constexpr ElemRow elem_rows[] = {
    {"f16", Elem::f16, 16, false},   {"bf16", Elem::bf16, 16, false},
    {"tf32", Elem::tf32, 32, false}, {"f32", Elem::f32, 32, false},
    {"f64", Elem::f64, 64, false},   {"s8", Elem::s8, 8, true},
    {"u8", Elem::u8, 8, true},       {"s4", Elem::s4, 4, true},
    {"u4", Elem::u4, 4, true},       {"e4m3", Elem::e4m3, 8, false},
    {"e5m2", Elem::e5m2, 8, false},  {"s32", Elem::s32, 32, true},
    {"b1", Elem::b1, 1, true},
};

const ElemRow& row_of(Elem e) {
  return elem_rows[static_cast<std::size_t>(e)];
}

/// The value of an 8-bit float with `ebits` exponent bits (e4m3: no infinity, S.1111.111 NaN;
/// e5m2: IEEE-like, infinities and NaNs at exponent 31).
double fp8_value(std::uint64_t bits, unsigned ebits) {
  const unsigned mbits = 7 - ebits;
  const int bias = (1 << (ebits - 1)) - 1;
  const bool neg = (bits >> 7 & 1) != 0;
  const auto e = static_cast<int>((bits >> mbits) & ((1u << ebits) - 1));
  const auto f = static_cast<double>(bits & ((1u << mbits) - 1));
  const double scale = static_cast<double>(1u << mbits);
  double v = 0;
  if (ebits == 4 && e == 15 && (bits & 7) == 7)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (ebits == 5 && e == 31)
    v = f == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  else if (e == 0)
    v = std::ldexp(f / scale, 1 - bias);
  else
    v = std::ldexp(1 + f / scale, e - bias);
  return neg ? -v : v;
}

bool one_of(Elem e, std::initializer_list<Elem> set) {
  for (Elem x : set)
    if (x == e)
      return true;
  return false;
}

} // namespace

std::optional<std::array<unsigned, 3>> parse_shape(std::string_view s) {
  std::array<unsigned, 3> dims{};
  const char letters[] = {'m', 'n', 'k'};
  std::size_t at = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    if (at >= s.size() || s[at] != letters[d])
      return std::nullopt;
    ++at;
    unsigned v = 0;
    const std::size_t first = at;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9' && at - first < 4)
      v = v * 10 + static_cast<unsigned>(s[at++] - '0');
    if (at == first || v == 0)
      return std::nullopt;
    dims[d] = v;
  }
  if (at != s.size())
    return std::nullopt;
  return dims;
}

bool is_tensor_word(std::string_view s) {
  return parse_shape(s) || parse_elem(s) || s == word_row || s == word_col || s == word_satfinite;
}

std::optional<Elem> parse_elem(std::string_view s) {
  for (const ElemRow& r : elem_rows)
    if (r.name == s)
      return r.elem;
  return std::nullopt;
}

std::string_view name(Elem e) {
  return row_of(e).name;
}

unsigned elem_bits(Elem e) {
  return row_of(e).bits;
}

bool is_integer(Elem e) {
  return row_of(e).integer;
}

double value(Elem e, std::uint64_t bits) {
  switch (e) {
  case Elem::f16:
    return alu::to_double(ir::Num::f16, bits & 0xffff);
  case Elem::bf16:
    return alu::to_double(ir::Num::bf16, bits & 0xffff);
  case Elem::tf32: // the 13 low fraction bits do not take part
    return alu::to_double(ir::Num::f32, bits & 0xffffe000ull);
  case Elem::f32:
    return alu::to_double(ir::Num::f32, bits & 0xffffffffull);
  case Elem::f64:
    return alu::to_double(ir::Num::f64, bits);
  case Elem::s8:
    return static_cast<double>(static_cast<std::int8_t>(bits & 0xff));
  case Elem::u8:
    return static_cast<double>(bits & 0xff);
  case Elem::s4:
    return static_cast<double>(static_cast<int>(bits & 0xf) - ((bits & 0x8) != 0 ? 16 : 0));
  case Elem::u4:
    return static_cast<double>(bits & 0xf);
  case Elem::e4m3:
    return fp8_value(bits & 0xff, 4);
  case Elem::e5m2:
    return fp8_value(bits & 0xff, 5);
  case Elem::s32:
    return static_cast<double>(static_cast<std::int32_t>(bits & 0xffffffffull));
  case Elem::b1:
    return static_cast<double>(bits & 1);
  }
  return 0;
}

std::optional<std::string> check_mma(const ir::MatrixOp& m) {
  const std::string shape =
      "m" + std::to_string(m.m) + "n" + std::to_string(m.n) + "k" + std::to_string(m.k);
  const std::string types = "." + std::string(name(m.d)) + "." + std::string(name(m.a)) + "." +
                            std::string(name(m.b)) + "." + std::string(name(m.c));
  auto no = [&] {
    return "mma ." + shape + " with types " + types +
           " is not simulated (simulated: m16n8k4/k8 tf32, m16n8k8/k16 f16 and bf16, m16n8k16/k32 "
           "and m8n8k16 s8/u8, m16n8k32/k64 and m8n8k32 s4/u4, m16n8k32 e4m3/e5m2, m8n8k4 f64)";
  };
  const bool f16ish = one_of(m.d, {Elem::f16, Elem::f32}) && one_of(m.c, {Elem::f16, Elem::f32});
  const bool f32acc = m.d == Elem::f32 && m.c == Elem::f32;
  const bool s32acc = m.d == Elem::s32 && m.c == Elem::s32;
  const bool i8 = one_of(m.a, {Elem::s8, Elem::u8}) && one_of(m.b, {Elem::s8, Elem::u8});
  const bool i4 = one_of(m.a, {Elem::s4, Elem::u4}) && one_of(m.b, {Elem::s4, Elem::u4});
  const bool fp8 = one_of(m.a, {Elem::e4m3, Elem::e5m2}) && one_of(m.b, {Elem::e4m3, Elem::e5m2});
  bool ok = false;
  if (m.n == 8 && m.m == 16) {
    ok = (m.a == Elem::tf32 && m.b == Elem::tf32 && f32acc && (m.k == 4 || m.k == 8)) ||
         (m.a == Elem::f16 && m.b == Elem::f16 && f16ish && (m.k == 8 || m.k == 16)) ||
         (m.a == Elem::bf16 && m.b == Elem::bf16 && f32acc && (m.k == 8 || m.k == 16)) ||
         (i8 && s32acc && (m.k == 16 || m.k == 32)) || (i4 && s32acc && (m.k == 32 || m.k == 64)) ||
         (fp8 && f16ish && m.d == m.c && m.k == 32);
  } else if (m.n == 8 && m.m == 8) {
    ok = (m.a == Elem::f64 && m.b == Elem::f64 && m.c == Elem::f64 && m.d == Elem::f64 &&
          m.k == 4) ||
         (i8 && s32acc && m.k == 16) || (i4 && s32acc && m.k == 32);
  }
  if (!ok)
    return no();
  if (m.satfinite && !is_integer(m.a))
    return "mma's .satfinite applies to the integer forms";
  return std::nullopt;
}

std::optional<std::string> check_wgmma(const ir::MatrixOp& m) {
  const bool i8 = one_of(m.a, {Elem::s8, Elem::u8}) && one_of(m.b, {Elem::s8, Elem::u8});
  const bool fp8 = one_of(m.a, {Elem::e4m3, Elem::e5m2}) && one_of(m.b, {Elem::e4m3, Elem::e5m2});
  const bool f16d = m.d == Elem::f16 || m.d == Elem::f32;
  bool ok = m.m == 64 && m.n % 8 == 0 && m.n >= 8 && m.n <= 256;
  if (m.a == Elem::f16 && m.b == Elem::f16)
    ok = ok && m.k == 16 && f16d;
  else if (m.a == Elem::bf16 && m.b == Elem::bf16)
    ok = ok && m.k == 16 && m.d == Elem::f32;
  else if (m.a == Elem::tf32 && m.b == Elem::tf32)
    ok = ok && m.k == 8 && m.d == Elem::f32;
  else if (fp8)
    ok = ok && m.k == 32 && f16d;
  else if (i8)
    ok = ok && m.k == 32 && m.d == Elem::s32 && (m.n == 8 || m.n == 24 || m.n % 16 == 0);
  else
    ok = false;
  if (!ok)
    return "wgmma.mma_async .m" + std::to_string(m.m) + "n" + std::to_string(m.n) + "k" +
           std::to_string(m.k) + "." + std::string(name(m.d)) + "." + std::string(name(m.a)) + "." +
           std::string(name(m.b)) +
           " is not simulated (simulated: dense m64nNk16 f16/bf16, m64nNk8 tf32, m64nNk32 "
           "e4m3/e5m2 and s8/u8)";
  if (m.satfinite && !i8)
    return "wgmma's .satfinite applies to the integer forms";
  return std::nullopt;
}

std::optional<std::string> check_wmma(const ir::MatrixOp& m, char part) {
  const unsigned shape = m.m * 10000 + m.n * 100 + m.k;
  const bool square16 = shape == 161616 || shape == 320816 || shape == 83216;
  const bool bits128 = m.m == 8 && m.n == 8 && m.k == 128;
  // The A/B element types each shape takes, and the accumulators each A/B type takes.
  auto ab_ok = [&](Elem a) {
    return (square16 && (a == Elem::f16 || a == Elem::bf16 || a == Elem::s8 || a == Elem::u8)) ||
           (shape == 161608 && a == Elem::tf32) || (shape == 80804 && a == Elem::f64) ||
           (shape == 80832 && (a == Elem::s4 || a == Elem::u4)) || (bits128 && a == Elem::b1);
  };
  auto acc_ok = [&](Elem a, Elem c) {
    if (a == Elem::f16)
      return c == Elem::f16 || c == Elem::f32;
    if (is_integer(a))
      return c == Elem::s32;
    return c == (a == Elem::f64 ? Elem::f64 : Elem::f32);
  };
  bool ok = false;
  if (part == 'a' || part == 'b')
    ok = ab_ok(m.d);
  else if (part != 0) // an accumulator: some A type of the shape takes it
    ok = std::any_of(std::begin(elem_rows), std::end(elem_rows),
                     [&](const ElemRow& r) { return ab_ok(r.elem) && acc_ok(r.elem, m.d); });
  else
    ok = ab_ok(m.a) && m.b == m.a && acc_ok(m.a, m.c) && acc_ok(m.a, m.d) &&
         (m.a == Elem::b1) == (m.popc != 0);
  // .b1: A is row-major and B column-major (a load of A `.row`, of B `.col`; wmma.mma .row.col).
  const bool b1_layout = part == 'a' ? !m.a_col : part == 'b' ? m.a_col : !m.a_col && m.b_col;
  if (ok && m.d == Elem::b1 && !b1_layout)
    return std::string("a .b1 wmma fragment of A is .row, of B .col (wmma.mma .row.col)");
  if (ok && part == 0 && m.a == Elem::b1 && !b1_layout)
    return std::string("the .b1 wmma.mma is .row.col");
  if (ok)
    return std::nullopt;
  const std::string what = part == 0 ? "wmma.mma" : std::string("a wmma fragment of ") + part;
  return what + " of shape m" + std::to_string(m.m) + "n" + std::to_string(m.n) + "k" +
         std::to_string(m.k) + " with these types is not simulated (f16, bf16, s8, u8 at " +
         "m16n16k16 / m32n8k16 / m8n32k16, tf32 at m16n16k8, f64 at m8n8k4, s4 / u4 at m8n8k32, " +
         "b1 at m8n8k128 with .and.popc / .xor.popc)";
}

std::array<unsigned, 2> wmma_dims(const ir::MatrixOp& m, char part) {
  if (part == 'a')
    return {m.m, m.k};
  if (part == 'b')
    return {m.k, m.n};
  return {m.m, m.n};
}

unsigned wmma_registers(const ir::MatrixOp& m, char part, Elem e) {
  if (e == Elem::f16 && (part == 'a' || part == 'b'))
    return 8;
  const auto [rows, cols] = wmma_dims(m, part);
  return rows * cols / 32u / per_register(e);
}

Cell wmma_cell(unsigned rows, unsigned cols, bool col_major, unsigned per_lane, unsigned lane,
               unsigned i) {
  const unsigned j = (lane * per_lane + i) % (rows * cols);
  return col_major ? Cell{j % rows, j / rows} : Cell{j / cols, j % cols};
}

unsigned a_registers(const ir::MatrixOp& m) {
  return m.m * m.k / 32u / per_register(m.a);
}

unsigned b_registers(const ir::MatrixOp& m) {
  return m.k * m.n / 32u / per_register(m.b);
}

unsigned c_registers(unsigned rows, unsigned cols, Elem c) {
  return rows * cols / 32u / per_register(c);
}

Cell a_cell(unsigned rows, Elem a, unsigned lane, unsigned i) {
  const unsigned epr = per_register(a), j = i / epr, e = i % epr, blocks = rows / 8;
  const unsigned g = lane >> 2, t = lane & 3;
  return {g + 8 * (j % blocks), t * epr + e + 4 * epr * (j / blocks)};
}

Cell b_cell(Elem b, unsigned lane, unsigned i) {
  const unsigned epr = per_register(b), j = i / epr, e = i % epr;
  const unsigned g = lane >> 2, t = lane & 3;
  return {t * epr + e + 4 * epr * j, g};
}

Cell c_cell(unsigned lane, unsigned i) {
  const unsigned g = lane >> 2, t = lane & 3;
  return {g + 8 * (i / 2), 2 * t + i % 2};
}

Cell wgmma_d_cell(unsigned t, unsigned i) {
  const unsigned w = t / 32, lane = t % 32, g = lane >> 2, q = lane & 3;
  return {16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1)};
}

std::uint64_t result_bits(Elem d, bool satfinite, double v, int sticky) {
  switch (d) {
  case Elem::s32: {
    // |v| < 2^53: exact; wrap modulo 2^32 unless .satfinite clamps
    const auto x = static_cast<std::int64_t>(v);
    if (satfinite) {
      const std::int64_t lo = std::numeric_limits<std::int32_t>::min();
      const std::int64_t hi = std::numeric_limits<std::int32_t>::max();
      return static_cast<std::uint32_t>(x < lo ? lo : x > hi ? hi : x);
    }
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(x));
  }
  case Elem::f16:
    return alu::round_to(ir::Num::f16, v, sticky, ir::Round::rn, false);
  case Elem::f64:
    return alu::round_to(ir::Num::f64, v, sticky, ir::Round::rn, false);
  default:
    return alu::round_to(ir::Num::f32, v, sticky, ir::Round::rn, false);
  }
}

std::vector<std::uint64_t> multiply(const ir::MatrixOp& m, unsigned rows, unsigned cols,
                                    std::span<const double> a, std::span<const double> b,
                                    std::span<const double> c) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(rows) * cols);
  for (unsigned i = 0; i < rows; ++i) {
    for (unsigned j = 0; j < cols; ++j) {
      // hi + lo: the sum so far, exactly (TwoSum of each exact product); f64: fused steps
      double hi = c[i * cols + j], lo = 0;
      for (unsigned kk = 0; kk < m.k; ++kk) {
        const double x = a[i * m.k + kk], y = b[kk * cols + j];
        if (m.d == Elem::f64) {
          hi = std::fma(x, y, hi);
          continue;
        }
        // single bits (0 or 1): AND is their product, XOR their difference
        const double p = m.popc == '^' ? (x != y ? 1 : 0) : x * y;
        const double s = hi + p, bp = s - hi;
        lo += (hi - (s - bp)) + (p - bp);
        hi = s;
      }
      const double s = hi + lo;
      const double rest = std::isfinite(s) ? lo - (s - hi) : 0;
      out[i * cols + j] = result_bits(m.d, m.satfinite, s, rest > 0 ? 1 : rest < 0 ? -1 : 0);
    }
  }
  return out;
}

Descriptor decode_descriptor(std::uint64_t d) {
  Descriptor r;
  r.start = static_cast<std::uint32_t>(d & 0x3fff) << 4;
  r.lbo = static_cast<std::uint32_t>((d >> 16) & 0x3fff) << 4;
  r.sbo = static_cast<std::uint32_t>((d >> 32) & 0x3fff) << 4;
  r.base_offset = static_cast<unsigned>((d >> 49) & 7);
  constexpr unsigned spans[] = {0, 128, 64, 32};
  r.swizzle = spans[(d >> 62) & 3];
  return r;
}

std::uint64_t kmajor_address(const Descriptor& d, unsigned r, unsigned kk, unsigned bits) {
  const std::uint64_t kbyte = static_cast<std::uint64_t>(kk) * bits / 8;
  if (d.swizzle == 0)
    return d.start + (r / 8) * std::uint64_t{d.sbo} + (kbyte / 16) * d.lbo + (r % 8) * 16 +
           kbyte % 16;
  const std::uint64_t a = d.start + (r / 8) * std::uint64_t{d.sbo} + (r % 8) * d.swizzle + kbyte;
  const std::uint64_t lines = d.swizzle / 16 - 1; // 7, 3 or 1: the chunk bits permuted
  return a ^ (((a >> 7) & lines) << 4);
}

std::uint64_t mnmajor_address(const Descriptor& d, unsigned r, unsigned kk, unsigned bits) {
  const std::uint64_t mnbyte = static_cast<std::uint64_t>(r) * bits / 8;
  const unsigned krow = kk % 8, kgroup = kk / 8;
  if (d.swizzle == 0)
    return d.start + (mnbyte / 16) * std::uint64_t{d.sbo} + kgroup * std::uint64_t{d.lbo} +
           krow * 16 + mnbyte % 16;
  const std::uint64_t a = d.start + (mnbyte / d.swizzle) * std::uint64_t{d.lbo} +
                          kgroup * std::uint64_t{d.sbo} + krow * d.swizzle + mnbyte % d.swizzle;
  const std::uint64_t lines = d.swizzle / 16 - 1;
  return a ^ (((a >> 7) & lines) << 4);
}

} // namespace ptxgen::sim::tc
