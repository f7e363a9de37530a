// `ptxgen lint`: --arg and what each kernel parameter gets (detail.hpp).

#include "driver/lint/detail.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/dtype_float.hpp"
#include "emitter/tile/tensor.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace ptxgen::lint {

namespace {

/// A decimal or 0x-hexadecimal number, a leading '-' giving its two's complement.
std::optional<std::uint64_t> parse_number(std::string_view s) {
  const bool negative = !s.empty() && s.front() == '-';
  if (negative)
    s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return negative ? ~v + 1 : v;
}

/// The product of the extents.
std::uint64_t shape_elements(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (const std::uint64_t d : shape)
    n *= d;
  return n;
}

/// "D0,D1,...": positive extents (at most 2^32 each) into `out`; false when one is not.
bool parse_extents(std::string_view dims, std::vector<std::uint64_t>& out) {
  while (true) {
    const std::size_t comma = dims.find(',');
    const auto d = parse_number(dims.substr(0, comma));
    if (!d || *d == 0 || *d > (1ull << 32))
      return false;
    out.push_back(*d);
    if (comma == std::string_view::npos)
      return true;
    dims.remove_prefix(comma + 1);
  }
}

/// `strides[S0,...]`: the map's byte strides of every dimension but the innermost (outermost
/// first, as a CUtensorMap's globalStrides reversed) instead of a dense tensor's; the tensor's
/// memory then ends past its farthest element.
Status strided(const std::vector<std::uint64_t>& strides, tile::TensorMapDesc& desc, ArgValue& a) {
  if (strides.size() + 1 != a.shape.size()) {
    return Failure{"--arg " + a.name +
                   ": tensor map: strides[...] needs one byte stride per dimension "
                   "but the innermost (" +
                   std::to_string(a.shape.size() - 1) + ")"};
  }
  const std::uint64_t element = a.bytes / std::max<std::uint64_t>(1, shape_elements(a.shape));
  std::uint64_t last = a.shape.back() * element; // the innermost run's bytes
  for (std::size_t k = 0; k < strides.size(); ++k) {
    desc.global_strides[k] = static_cast<std::int64_t>(strides[k]);
    last += (a.shape[k] - 1) * strides[k];
  }
  if (last > detail::region_max_bytes) {
    return Failure{"--arg " + a.name + ": tensor map: the strides reach " + std::to_string(last) +
                   " bytes, more than " + std::to_string(detail::region_max_bytes)};
  }
  a.bytes = last;
  return {};
}

/// The keys after TYPE[...]: `box[B0,...]` (required), `strides[S0,...]`, `swizzle=32B|64B|128B`,
/// `fill=nan`; the map is checked against the tensor-map rules (tile::check_tensor_map).
Status parse_map(std::string_view keys, tile::DType dtype, ArgValue& a) {
  const std::string where = "--arg " + a.name + ": tensor map: ";
  tile::Tensor t;
  t.name = a.name;
  t.dtype = dtype;
  for (const std::uint64_t d : a.shape)
    t.shape.push_back(static_cast<std::int64_t>(d));
  t.align = 128;
  std::vector<std::uint64_t> box, strides;
  tile::TensorMapSwizzle swizzle = tile::TensorMapSwizzle::none;
  bool nan = false;
  while (!keys.empty()) {
    const std::size_t colon = keys.find(':');
    const std::string_view key = keys.substr(0, colon);
    keys = colon == std::string_view::npos ? std::string_view{} : keys.substr(colon + 1);
    if (key.starts_with("box[") && key.ends_with("]") &&
        parse_extents(key.substr(4, key.size() - 5), box))
      continue;
    if (key.starts_with("strides[") && key.ends_with("]") &&
        parse_extents(key.substr(8, key.size() - 9), strides))
      continue;
    if (key == "fill=nan") {
      nan = true;
      continue;
    }
    const auto mode = key.starts_with("swizzle=")
                          ? parse_name(tile::swizzle_rows, &tile::SwizzleRow::name, key.substr(8))
                          : std::nullopt;
    if (!mode) {
      return Failure{
          where + "'" + std::string(key) +
          "' is not box[B0,...], strides[S0,...], swizzle=none|32B|64B|128B or fill=nan"};
    }
    swizzle = *mode;
  }
  if (box.size() != a.shape.size()) {
    return Failure{where + "box[...] needs one extent per dimension of " + a.dtype + "[...] (" +
                   std::to_string(a.shape.size()) + ")"};
  }
  tile::TensorMapDesc desc =
      tile::tensor_map_of(t, std::vector<std::int64_t>(box.begin(), box.end()));
  desc.swizzle = swizzle;
  desc.oob_fill = nan ? tile::TensorMapOobFill::nan : tile::TensorMapOobFill::zero;
  if (!strides.empty())
    if (auto s = strided(strides, desc, a); !s)
      return s;
  for (const Diagnostic& d : tile::check_tensor_map(desc))
    return Failure{where + d.message}; // the first problem
  a.map = std::move(desc);
  return {};
}

/// The width in bytes of a value type of TYPE{...}: bN, uN, sN (N 8, 16, 32, 64), f32, f64.
std::optional<unsigned> value_width(std::string_view type) {
  if (type == "f32")
    return 4;
  if (type == "f64")
    return 8;
  if (type.size() < 2 || (type[0] != 'b' && type[0] != 'u' && type[0] != 's'))
    return std::nullopt;
  const std::string_view bits = type.substr(1);
  for (const unsigned w : {8u, 16u, 32u, 64u}) {
    if (bits == std::to_string(w))
      return w / 8;
  }
  return std::nullopt;
}

/// One value of TYPE{...}: an integer (decimal, 0x, a leading '-'), or a float of f32 / f64
/// (decimal, as strtod reads it; 0x gives the bits).
std::optional<std::uint64_t> parse_value(std::string_view type, std::string_view v) {
  if (auto n = parse_number(v))
    return n;
  if (type != "f32" && type != "f64")
    return std::nullopt;
  const std::string text(v);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    return std::nullopt;
  if (type == "f64")
    return std::bit_cast<std::uint64_t>(d);
  return std::bit_cast<std::uint32_t>(static_cast<float>(d));
}

/// TYPE{V0,V1,...} into a.raw.
Status parse_values(std::string_view value, ArgValue& a) {
  const std::size_t open = value.find('{');
  const auto width = value_width(value.substr(0, open));
  if (!width || !value.ends_with("}")) {
    return Failure{"--arg " + a.name + ": '" + std::string(value) +
                   "' is not TYPE{V0,V1,...} (TYPE b8..b64, u8..u64, s8..s64, f32, f64)"};
  }
  const std::string_view type = value.substr(0, open);
  std::string_view list = value.substr(open + 1, value.size() - open - 2);
  while (true) {
    const std::size_t comma = list.find(',');
    const auto v = parse_value(type, list.substr(0, comma));
    if (!v) {
      return Failure{"--arg " + a.name + ": '" + std::string(list.substr(0, comma)) + "' in '" +
                     std::string(value) + "' is not a value of " + std::string(type)};
    }
    for (unsigned k = 0; k < *width; ++k)
      a.raw.push_back(static_cast<std::uint8_t>(*v >> (8 * k)));
    if (comma == std::string_view::npos)
      return {};
    list.remove_prefix(comma + 1);
  }
}

} // namespace

Fallible<ArgValue> parse_arg(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return Failure{"--arg '" + std::string(text) + "' is not NAME=VALUE or NAME=TYPE[D0,D1,...]"};
  }
  std::string_view name = text.substr(0, eq);
  std::optional<std::uint64_t> offset;
  if (const std::size_t plus = name.find('+'); plus != std::string_view::npos) {
    offset = parse_number(name.substr(plus + 1));
    if (plus == 0 || !offset) {
      return Failure{"--arg '" + std::string(text) +
                     "': NAME+OFFSET needs a byte offset (a number)"};
    }
    name = name.substr(0, plus);
  }
  const std::string_view value = text.substr(eq + 1);
  Fallible<ArgValue> a = [&]() -> Fallible<ArgValue> {
    if (auto n = parse_number(value))
      return scalar_arg(std::string(name), *n);
    return memory_arg(std::string(name), value);
  }();
  if (a)
    a->offset = offset;
  return a;
}

ArgValue scalar_arg(std::string name, std::uint64_t value) {
  ArgValue a;
  a.name = std::move(name);
  a.scalar = value;
  return a;
}

Fallible<ArgValue> memory_arg(std::string name, std::string_view value) {
  ArgValue a;
  a.name = std::move(name);
  if (value.find('{') != std::string_view::npos) {
    if (auto s = parse_values(value, a); !s)
      return Failure{s.error()};
    return a;
  }
  a.indirect = value.starts_with("@");
  if (a.indirect)
    value.remove_prefix(1);
  std::string_view map_keys;
  if (const std::size_t colon = value.find(':'); colon != std::string_view::npos) {
    map_keys = value.substr(colon + 1);
    value = value.substr(0, colon);
  }
  const std::size_t open = value.find('[');
  const auto dtype = open == std::string_view::npos || value.back() != ']'
                         ? std::nullopt
                         : tile::parse_storage_dtype(value.substr(0, open));
  if (!dtype) {
    return Failure{"--arg " + a.name + ": '" + std::string(value) +
                   "' is neither a number nor TYPE[D0,D1,...] (TYPE " +
                   tile::storage_dtype_choices() + ")"};
  }
  a.dtype = std::string(value.substr(0, open));
  a.bytes = tile::size_bytes(*dtype);
  if (!parse_extents(value.substr(open + 1, value.size() - open - 2), a.shape)) {
    return Failure{"--arg " + a.name + ": the extents in '" + std::string(value) +
                   "' must be positive numbers"};
  }
  for (const std::uint64_t d : a.shape) {
    a.bytes *= d;
    if (a.bytes > detail::region_max_bytes) {
      return Failure{"--arg " + a.name + ": " + std::string(value) + " is more than " +
                     std::to_string(detail::region_max_bytes) + " bytes"};
    }
  }
  if (!map_keys.empty())
    if (auto s = parse_map(map_keys, *dtype, a); !s)
      return Failure{s.error()};
  if (a.indirect && !a.map) {
    return Failure{"--arg " + a.name +
                   ": '@' is a pointer to a tensor map: @TYPE[D0,...]:box[B0,...]"};
  }
  return a;
}

namespace detail {

std::uint64_t region_base(std::size_t k) {
  return 0x0000'2000'0000'0000ull + static_cast<std::uint64_t>(k) * region_stride;
}

void fill_random(std::vector<std::uint8_t>& bytes, std::uint64_t seed) {
  std::uint64_t state = seed * 0x2545F4914F6CDD1Dull + 0x9E3779B97F4A7C15ull;
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    state += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::memcpy(bytes.data() + i, &z, std::min<std::size_t>(8, bytes.size() - i));
  }
}

void fill_values(std::vector<std::uint8_t>& bytes, tile::DType dtype, std::uint64_t seed) {
  fill_random(bytes, seed);
  // Mantissa bits: k / 2^bits with |k| < 2^bits needs no more significant bits than the type
  // has, so the value is exact and its encoding has no rounding to choose.
  const unsigned significand = tile::float_format(dtype).significand_bits;
  if (significand == 0)
    return; // an integer or untyped element keeps its random bytes
  const unsigned bits = significand - 1, size = tile::size_bytes(dtype);
  for (std::size_t i = 0; i + size <= bytes.size(); i += size) {
    std::uint64_t r = 0;
    std::memcpy(&r, bytes.data() + i, size);
    // The element's random bits give k in [-2^bits, 2^bits).
    const std::int64_t k = static_cast<std::int64_t>(r & ((2ull << bits) - 1)) -
                           static_cast<std::int64_t>(1ull << bits);
    const double v = std::ldexp(static_cast<double>(k), -static_cast<int>(bits));
    std::uint64_t out = 0;
    if (size == 8) {
      out = std::bit_cast<std::uint64_t>(v);
    } else {
      const auto f = std::bit_cast<std::uint32_t>(static_cast<float>(v));
      if (dtype == tile::DType::float32)
        out = f;
      else if (dtype == tile::DType::bfloat16)
        out = f >> 16; // exact: the value has at most 8 significant bits
      else if (k != 0) // f16: every nonzero value is >= 2^-10, a normal f16
        out = ((f >> 16) & 0x8000u) | (((f >> 23 & 0xffu) - 127 + 15) << 10) | ((f >> 13) & 0x3ffu);
      else
        out = (f >> 16) & 0x8000u;
    }
    std::memcpy(bytes.data() + i, &out, size);
  }
}

namespace {

/// Whether some instruction of `e` loads bytes of parameter `p` (ld.param at its offset).
bool loads_param(const sim::ir::Entry& e, const sim::ir::Param& p) {
  for (const sim::ir::Op& op : e.ops) {
    if (op.code != sim::ir::Code::ld || op.space != sim::ir::Space::param || op.addr.has_reg)
      continue;
    const auto at = static_cast<std::uint64_t>(op.addr.offset);
    if (at < p.offset + p.size && at + op.type.bits / 8u * op.vec > p.offset)
      return true;
  }
  return false;
}

/// Whether some instruction of `e` loads parameter bytes through a register address (`mov.b64
/// %rd, param; ld.param [%rd+8]`): any parameter whose address is taken may be read so.
bool loads_param_indirectly(const sim::ir::Entry& e) {
  return std::any_of(e.ops.begin(), e.ops.end(), [](const sim::ir::Op& op) {
    return op.code == sim::ir::Code::ld && op.space == sim::ir::Space::param && op.addr.has_reg;
  });
}

std::string shape_text(const ArgValue& a) {
  std::string s = a.dtype + "[";
  for (std::size_t k = 0; k < a.shape.size(); ++k)
    s += (k == 0 ? "" : ",") + std::to_string(a.shape[k]);
  return s + "]";
}

/// What an --arg's memory is, for the report: "f32[128,32] (16384 bytes, random)".
std::string memory_text(const ArgValue& a) {
  const std::string text = shape_text(a) + " (" + std::to_string(a.bytes) + " bytes, random)";
  if (!a.map)
    return text;
  return (a.indirect ? "a pointer to a tensor map of " : "a tensor map of ") + text;
}

ArgMemory memory_of(const ArgValue& a) {
  return ArgMemory{a.bytes, a.map, a.indirect, tile::parse_storage_dtype(a.dtype)};
}

/// Bytes an --arg puts at its offset of a struct parameter: its values, or what its memory
/// leaves there (a map's 128 bytes, or an 8-byte address).
std::uint64_t field_bytes(const ArgValue& a) {
  if (!a.raw.empty())
    return a.raw.size();
  return a.map && !a.indirect ? sim::tensor_map_bytes : 8;
}

/// One --arg into the plan of a parameter of `size` bytes; a failure when it does not fit.
Status plan_arg(const ArgValue& a, std::uint32_t size, ParamPlan& p) {
  const bool array = size > sizeof(std::uint64_t);
  // A map with no offset is the whole parameter when that is a map's 128 bytes; in a larger
  // struct (CuTe's TMA atoms) it is the struct's first field.
  const bool whole_map = a.map && !a.indirect && !a.offset && size == sim::tensor_map_bytes;
  if (!array || whole_map) {
    if (a.offset)
      return Failure{"--arg " + a.name + "+" + std::to_string(*a.offset) + ": the parameter has " +
                     std::to_string(size) +
                     " bytes; NAME+OFFSET fills an array parameter (a struct)"};
    if (!a.raw.empty()) {
      if (a.raw.size() > size)
        return Failure{"--arg " + a.name + ": " + std::to_string(a.raw.size()) +
                       " bytes of values for a parameter of " + std::to_string(size)};
      p.kind = ParamPlan::Kind::scalar;
      p.value = 0;
      for (std::size_t k = 0; k < a.raw.size(); ++k)
        p.value |= static_cast<std::uint64_t>(a.raw[k]) << (8 * k);
      p.how = "scalar " + std::to_string(p.value);
    } else if (a.scalar) {
      p.kind = ParamPlan::Kind::scalar;
      p.value = *a.scalar;
      p.how = "scalar " + std::to_string(*a.scalar);
    } else {
      p.kind = ParamPlan::Kind::sized;
      p.memory = memory_of(a);
      p.how = memory_text(a);
    }
    return {};
  }
  // A field of a struct passed by value (no offset: at its first byte).
  if (a.scalar)
    return Failure{"--arg " + a.name + ": the parameter is a " + std::to_string(size) +
                   "-byte array (a struct by value): a number has no width there; give its "
                   "fields' values with their type, --arg NAME=u32{V0,V1,...} or "
                   "NAME+OFFSET=u64{V}"};
  const std::uint64_t at = a.offset.value_or(0);
  if (at + field_bytes(a) > size)
    return Failure{"--arg " + a.name + (a.offset ? "+" + std::to_string(at) : std::string()) +
                   ": " + std::to_string(field_bytes(a)) + " bytes at byte " + std::to_string(at) +
                   " of a parameter of " + std::to_string(size)};
  if (p.kind != ParamPlan::Kind::fields) {
    p.kind = ParamPlan::Kind::fields;
    p.raw.assign(size, 0);
    p.how = "a " + std::to_string(size) + "-byte struct:";
  }
  if (!a.raw.empty()) {
    std::copy(a.raw.begin(), a.raw.end(), p.raw.begin() + static_cast<std::ptrdiff_t>(at));
    p.how += " " + std::to_string(a.raw.size()) + " bytes of values at " + std::to_string(at) + ";";
  } else {
    p.fields.push_back(Field{at, memory_of(a), shape_text(a)});
    p.how += " at " + std::to_string(at) + " " + memory_text(a) + ";";
  }
  return {};
}

} // namespace

Status plan_params(const sim::ir::Entry& e, const std::vector<ArgValue>& args,
                   std::vector<ParamPlan>& plans) {
  plans.assign(e.params.size(), ParamPlan{});
  Status first = {}; // every --arg is planned (the report shows them) before the first failure
  std::vector<bool> given(e.params.size(), false);
  for (const ArgValue& a : args) {
    std::size_t k = 0;
    while (k < e.params.size() && e.params[k].name != a.name && std::to_string(k) != a.name)
      ++k;
    if (k == e.params.size())
      continue; // another kernel's parameter (unmatched_args says when it is nobody's)
    given[k] = true;
    if (auto s = plan_arg(a, e.params[k].size, plans[k]); !s && first)
      first = Failure{"`" + e.name + "`: " + s.error()};
  }
  if (!first)
    return first;
  std::string unset;
  for (std::size_t k = 0; k < e.params.size(); ++k) {
    const sim::ir::Param& param = e.params[k];
    if (given[k])
      continue;
    ParamPlan& p = plans[k];
    if (param.size == 8) {
      p.kind = ParamPlan::Kind::region;
      p.bytes = region_initial_bytes;
    } else if (param.size > 8) {
      // An array the entry never reads (no ld.param of its bytes, none through a register)
      // is zeros; any other needs its bytes (undescribed_arrays says how to give them). A
      // tensor map (by its size) is read by tensor copies, through its address: never zeros.
      if (loads_param(e, param) || loads_param_indirectly(e) ||
          param.size == sim::tensor_map_bytes) {
        p.kind = ParamPlan::Kind::other;
        p.how = "a " + std::to_string(param.size) + "-byte array (not filled)";
      } else {
        p.kind = ParamPlan::Kind::fields;
        p.raw.assign(param.size, 0);
        p.how = "unused (zeros)";
      }
    } else if (loads_param(e, param)) {
      p.kind = ParamPlan::Kind::unset;
      unset += (unset.empty() ? "`" : ", `") + param.name + "` (" + std::to_string(k) + ", " +
               param.type + ")";
    } else {
      p.how = "unused";
    }
  }
  if (!unset.empty())
    return Failure{"`" + e.name + "` loads the scalar parameter(s) " + unset +
                   ", which no --arg sets; their values may bound loops or steer branches, so "
                   "lint does not guess them: give --arg NAME=VALUE (by name or index)"};
  return {};
}

std::optional<std::string> undescribed_arrays(const sim::ir::Entry& e,
                                              const std::vector<ParamPlan>& plans) {
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const sim::ir::Param& p = e.params[k];
    if (plans[k].kind != ParamPlan::Kind::other || p.size <= sizeof(std::uint64_t))
      continue;
    const std::string index = std::to_string(k);
    const std::string head =
        "parameter " + index + " (`" + p.name + "`) is a " + std::to_string(p.size) + "-byte array";
    if (p.size == sim::tensor_map_bytes)
      return head +
             ", a tensor map (CUtensorMap) by its size: lint needs the tensor it maps, which "
             "its bytes do not tell; describe it with --arg " +
             index +
             "=TYPE[D0,D1,...]:box[B0,B1,...][:swizzle=32B|64B|128B][:fill=nan] (the element "
             "type, the tensor's extents outermost first, and the box each copy moves; "
             "docs/lint.md, \"Tensor maps\")";
    return head +
           ", a struct passed by value, which the kernel reads: give its bytes field by field, "
           "--arg " +
           index + "=u32{V0,V1,...} (values of b8..b64, u8..u64, s8..s64, f32, f64) or --arg " +
           index +
           "+OFFSET=... per field; a field that is a pointer takes TYPE[D0,...] (a region), a "
           "tensor map TYPE[D0,...]:box[B0,...], a pointer to one @TYPE[...]:box[...] "
           "(docs/lint.md, \"Structs by value\")";
  }
  return std::nullopt;
}

} // namespace detail

} // namespace ptxgen::lint
