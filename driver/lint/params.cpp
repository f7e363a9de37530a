// `ptxgen lint`: --arg and what each kernel parameter gets (detail.hpp).

#include "driver/lint/detail.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/tensor.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <charconv>
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

/// The keys after TYPE[...]: `box[B0,...]` (required), `swizzle=32B|64B|128B`, `fill=nan`;
/// the map is checked against the tensor-map rules (tile::check_tensor_map).
bool parse_map(std::string_view keys, tile::DType dtype, ArgValue& a, std::string& error) {
  const std::string where = "--arg " + a.name + ": tensor map: ";
  tile::Tensor t;
  t.name = a.name;
  t.dtype = dtype;
  for (const std::uint64_t d : a.shape)
    t.shape.push_back(static_cast<std::int64_t>(d));
  t.align = 128;
  std::vector<std::uint64_t> box;
  tile::TensorMapSwizzle swizzle = tile::TensorMapSwizzle::none;
  bool nan = false;
  while (!keys.empty()) {
    const std::size_t colon = keys.find(':');
    const std::string_view key = keys.substr(0, colon);
    keys = colon == std::string_view::npos ? std::string_view{} : keys.substr(colon + 1);
    if (key.starts_with("box[") && key.ends_with("]") &&
        parse_extents(key.substr(4, key.size() - 5), box))
      continue;
    if (key == "fill=nan") {
      nan = true;
      continue;
    }
    const auto mode = key.starts_with("swizzle=")
                          ? parse_name(tile::swizzle_rows, &tile::SwizzleRow::name, key.substr(8))
                          : std::nullopt;
    if (!mode) {
      error = where + "'" + std::string(key) +
              "' is not box[B0,...], swizzle=none|32B|64B|128B or fill=nan";
      return false;
    }
    swizzle = *mode;
  }
  if (box.size() != a.shape.size()) {
    error = where + "box[...] needs one extent per dimension of " + a.dtype + "[...] (" +
            std::to_string(a.shape.size()) + ")";
    return false;
  }
  tile::TensorMapDesc desc =
      tile::tensor_map_of(t, std::vector<std::int64_t>(box.begin(), box.end()));
  desc.swizzle = swizzle;
  desc.oob_fill = nan ? tile::TensorMapOobFill::nan : tile::TensorMapOobFill::zero;
  for (const Diagnostic& d : tile::check_tensor_map(desc)) {
    error = where + d.message;
    return false;
  }
  a.map = std::move(desc);
  return true;
}

} // namespace

std::optional<ArgValue> parse_arg(std::string_view text, std::string& error) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    error = "--arg '" + std::string(text) + "' is not NAME=VALUE or NAME=TYPE[D0,D1,...]";
    return std::nullopt;
  }
  std::string name(text.substr(0, eq));
  const std::string_view value = text.substr(eq + 1);
  if (auto n = parse_number(value))
    return scalar_arg(std::move(name), *n);
  return memory_arg(std::move(name), value, error);
}

ArgValue scalar_arg(std::string name, std::uint64_t value) {
  ArgValue a;
  a.name = std::move(name);
  a.scalar = value;
  return a;
}

std::optional<ArgValue> memory_arg(std::string name, std::string_view value, std::string& error) {
  ArgValue a;
  a.name = std::move(name);
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
    error = "--arg " + a.name + ": '" + std::string(value) +
            "' is neither a number nor TYPE[D0,D1,...] (TYPE " + tile::storage_dtype_choices() +
            ")";
    return std::nullopt;
  }
  a.dtype = std::string(value.substr(0, open));
  a.bytes = tile::size_bytes(*dtype);
  if (!parse_extents(value.substr(open + 1, value.size() - open - 2), a.shape)) {
    error = "--arg " + a.name + ": the extents in '" + std::string(value) +
            "' must be positive numbers";
    return std::nullopt;
  }
  for (const std::uint64_t d : a.shape) {
    a.bytes *= d;
    if (a.bytes > detail::region_max_bytes) {
      error = "--arg " + a.name + ": " + std::string(value) + " is more than " +
              std::to_string(detail::region_max_bytes) + " bytes";
      return std::nullopt;
    }
  }
  if (!map_keys.empty() && !parse_map(map_keys, *dtype, a, error))
    return std::nullopt;
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

std::string shape_text(const ArgValue& a) {
  std::string s = a.dtype + "[";
  for (std::size_t k = 0; k < a.shape.size(); ++k)
    s += (k == 0 ? "" : ",") + std::to_string(a.shape[k]);
  return s + "]";
}

} // namespace

std::vector<ParamPlan> plan_params(const sim::ir::Entry& e, const std::vector<ArgValue>& args,
                                   std::string& error) {
  std::vector<ParamPlan> plans(e.params.size());
  std::vector<bool> given(e.params.size(), false);
  for (const ArgValue& a : args) {
    std::size_t k = 0;
    while (k < e.params.size() && e.params[k].name != a.name && std::to_string(k) != a.name)
      ++k;
    if (k == e.params.size())
      continue; // another kernel's parameter (unmatched_args says when it is nobody's)
    given[k] = true;
    ParamPlan& p = plans[k];
    if (a.scalar) {
      p.kind = ParamPlan::Kind::scalar;
      p.value = *a.scalar;
      p.how = "scalar " + std::to_string(*a.scalar);
    } else {
      p.kind = ParamPlan::Kind::sized;
      p.bytes = a.bytes;
      p.map = a.map;
      p.how = (a.map ? "a tensor map of " : "") + shape_text(a) + " (" + std::to_string(a.bytes) +
              " bytes, random)";
    }
  }
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
      p.kind = ParamPlan::Kind::other;
      p.how = "a " + std::to_string(param.size) + "-byte array (not filled)";
    } else if (loads_param(e, param)) {
      p.kind = ParamPlan::Kind::unset;
      unset += (unset.empty() ? "`" : ", `") + param.name + "` (" + std::to_string(k) + ", " +
               param.type + ")";
    } else {
      p.how = "unused";
    }
  }
  if (!unset.empty())
    error = "`" + e.name + "` loads the scalar parameter(s) " + unset +
            ", which no --arg sets; their values may bound loops or steer branches, so lint does "
            "not guess them: give --arg NAME=VALUE (by name or index)";
  return plans;
}

std::optional<std::string> undescribed_arrays(const sim::ir::Entry& e,
                                              const std::vector<ParamPlan>& plans) {
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const sim::ir::Param& p = e.params[k];
    if (plans[k].kind != ParamPlan::Kind::other || p.size <= sizeof(std::uint64_t))
      continue;
    const std::string head = "parameter `" + p.name + "` (" + std::to_string(k) + ") is a " +
                             std::to_string(p.size) + "-byte array";
    if (p.size == sim::tensor_map_bytes)
      return head +
             ", a tensor map (CUtensorMap) by its size: lint needs the tensor it maps, which "
             "its bytes do not tell; describe it with --arg " +
             p.name +
             "=TYPE[D0,D1,...]:box[B0,B1,...][:swizzle=32B|64B|128B][:fill=nan] (the element "
             "type, the tensor's extents outermost first, and the box each copy moves; "
             "docs/lint.md, \"Tensor maps\")";
    return head +
           " (a struct passed by value); lint fills an array parameter only when it is "
           "a tensor map described with --arg " +
           p.name + "=TYPE[D0,...]:box[B0,...]";
  }
  return std::nullopt;
}

} // namespace detail

} // namespace ptxgen::lint
