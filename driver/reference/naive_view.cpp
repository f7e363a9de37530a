#include "driver/reference/naive_view.hpp"

#include "driver/reference/naive_expr.hpp"
#include "driver/reference/tensor_map_naive.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/support/result.hpp"

#include <cctype>
#include <set>
#include <type_traits>
#include <variant>

namespace ptxgen::driver {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// One side of a pattern: "(w t) (r v)" -> {{w, t}, {r, v}}.
Status parse_side(std::string_view s, std::vector<std::vector<std::string>>& out) {
  bool in_group = false;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
    } else if (c == '(') {
      if (in_group) {
        return Failure{"nested parentheses"};
      }
      in_group = true;
      out.emplace_back();
      ++i;
    } else if (c == ')') {
      if (!in_group) {
        return Failure{"')' without '('"};
      }
      in_group = false;
      ++i;
    } else if (c == '1' && (i + 1 == s.size() || !is_name_char(s[i + 1]))) {
      // An anonymous axis of size 1: a group of no names; inside a group a factor of 1.
      if (!in_group) {
        out.emplace_back();
      }
      ++i;
    } else if (is_name_start(c)) {
      std::size_t j = i;
      while (j < s.size() && is_name_char(s[j])) {
        ++j;
      }
      std::string name(s.substr(i, j - i));
      if (in_group) {
        out.back().push_back(std::move(name));
      } else {
        out.push_back({std::move(name)});
      }
      i = j;
    } else if (c == '.') {
      return Failure{"'...' is not supported"};
    } else {
      return Failure{std::string("unexpected character '") + c + "'"};
    }
  }
  if (in_group) {
    return Failure{"'(' without ')'"};
  }
  return {};
}

Status plan_rearrange(const tile::RearrangeStep& step, const std::vector<std::int64_t>& in,
                      NaivePattern& pattern,
                      std::map<std::string, std::int64_t, std::less<>>& sizes,
                      std::vector<std::int64_t>& out) {
  auto parsed = parse_naive_pattern(step.pattern);
  if (!parsed) {
    return Failure{"pattern \"" + step.pattern + "\": " + parsed.error()};
  }
  pattern = *parsed;
  if (pattern.lhs.size() != in.size()) {
    return Failure{"pattern \"" + step.pattern + "\" has " + std::to_string(pattern.lhs.size()) +
                   " input axes but the input has rank " + std::to_string(in.size())};
  }
  std::set<std::string, std::less<>> names;
  for (const auto& g : pattern.lhs) {
    names.insert(g.begin(), g.end());
  }
  for (const auto& [name, size] : step.sizes) {
    if (!names.contains(name)) {
      return Failure{"size given for '" + name + "', which the pattern does not use"};
    }
    if (size <= 0) {
      return Failure{"size of '" + name + "' is " + std::to_string(size) +
                     ", expected a positive size"};
    }
    sizes[name] = size;
  }
  for (std::size_t a = 0; a < in.size(); ++a) {
    std::int64_t known = 1;
    std::vector<std::string> unknown;
    for (const auto& n : pattern.lhs[a]) {
      auto it = sizes.find(n);
      if (it == sizes.end()) {
        unknown.push_back(n);
      } else {
        known *= it->second;
      }
    }
    if (unknown.size() > 1) {
      return Failure{"input axis " + std::to_string(a) + " has more than one unknown size ('" +
                     unknown[0] + "', '" + unknown[1] + "')"};
    }
    if (unknown.empty()) {
      if (known != in[a]) {
        return Failure{"input axis " + std::to_string(a) + " has size " + std::to_string(in[a]) +
                       " but its group multiplies to " + std::to_string(known)};
      }
    } else {
      if (in[a] % known != 0) {
        return Failure{"input axis " + std::to_string(a) + " of size " + std::to_string(in[a]) +
                       " is not divisible by " + std::to_string(known)};
      }
      sizes[unknown[0]] = in[a] / known;
    }
  }
  out.clear();
  for (const auto& g : pattern.rhs) {
    std::int64_t s = 1;
    for (const auto& n : g) {
      s *= sizes.at(n);
    }
    out.push_back(s);
  }
  return {};
}

/// The names of a parsed pattern as indices (in the order of the left side), with sizes.
bool resolve_names(const NaivePattern& pattern,
                   const std::map<std::string, std::int64_t, std::less<>>& sizes,
                   NaivePlan::Names& out) {
  std::map<std::string, std::size_t, std::less<>> index;
  for (const auto& g : pattern.lhs) {
    out.lhs.emplace_back();
    for (const auto& n : g) {
      index.emplace(n, out.size.size());
      out.lhs.back().push_back(out.size.size());
      out.size.push_back(sizes.at(n));
    }
  }
  for (const auto& g : pattern.rhs) {
    out.rhs.emplace_back();
    for (const auto& n : g)
      out.rhs.back().push_back(index.at(n)); // both sides name the same axes (parsed so)
  }
  return true;
}

Status plan_sub(const tile::SubStep& step, const std::vector<std::int64_t>& in,
                std::vector<std::int64_t>& out) {
  if (step.entries.size() > in.size()) {
    return Failure{"sub has " + std::to_string(step.entries.size()) + " entries for rank " +
                   std::to_string(in.size())};
  }
  out.clear();
  for (std::size_t a = 0; a < in.size(); ++a) {
    if (a >= step.entries.size()) {
      out.push_back(in[a]);
      continue;
    }
    const auto& e = step.entries[a];
    if (!e.is_slice) {
      if (!e.index) {
        return Failure{"sub entry " + std::to_string(a) + " has no index expression"};
      }
      continue; // the axis disappears
    }
    if (e.begin < 0 || e.begin > e.end || e.end > in[a]) {
      return Failure{"slice " + std::to_string(e.begin) + ":" + std::to_string(e.end) +
                     " of axis " + std::to_string(a) + " (size " + std::to_string(in[a]) + ")"};
    }
    out.push_back(e.end - e.begin);
  }
  return {};
}

/// a * b + c, remembering whether any such step left int64: a runtime index far out of range
/// (`sub[tid - 2^59]`, seen under --unchecked) must not overflow; such an element has no
/// offset at all.
struct NaiveArith {
  bool overflow = false;
  std::int64_t mul_add(std::int64_t a, std::int64_t b, std::int64_t c) {
    std::int64_t r = 0;
    overflow = overflow || __builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r);
    return r;
  }
};

/// A rearrange step walked backwards: `prev` becomes the coordinates of its input for the
/// coordinates `cur` of its output. `digit`: scratch for the names' values.
void naive_unrearrange(const NaivePlan::Names& names, const std::vector<std::int64_t>& cur,
                       std::vector<std::int64_t>& digit, std::vector<std::int64_t>& prev,
                       NaiveArith& arith) {
  digit.assign(names.size.size(), 0);
  for (std::size_t a = 0; a < names.rhs.size(); ++a) {
    std::int64_t c = cur[a];
    const auto& g = names.rhs[a];
    // Last name fastest; the first name keeps what is left (not wrapped).
    for (std::size_t k = g.size(); k-- > 0;) {
      if (k == 0) {
        digit[g[k]] = c;
      } else {
        const std::int64_t s = names.size[g[k]];
        digit[g[k]] = c % s;
        c /= s;
      }
    }
  }
  for (const auto& g : names.lhs) {
    std::int64_t c = 0;
    for (const std::size_t n : g) {
      c = arith.mul_add(c, names.size[n], digit[n]);
    }
    prev.push_back(c);
  }
}

/// A sub step (input rank `in_rank`) walked backwards: `prev` becomes the coordinates of its
/// input for the coordinates `cur` of its output. `indices`: its index values, evaluated when
/// `first` (the same for every byte of the element). Fails when one does not evaluate.
Status naive_unsub(const tile::SubStep& step, std::size_t in_rank, const tile::ExprEnv& env,
                   bool first, std::vector<std::int64_t>& indices,
                   const std::vector<std::int64_t>& cur, std::vector<std::int64_t>& prev,
                   NaiveArith& arith) {
  std::size_t next = 0; // the next coordinate of `cur` to consume
  std::size_t next_index = 0;
  for (std::size_t a = 0; a < in_rank; ++a) {
    if (a < step.entries.size() && !step.entries[a].is_slice) {
      if (first) {
        auto value = naive_evaluate(*step.entries[a].index, env);
        if (!value)
          return Failure{"sub index " + std::to_string(a) + " does not evaluate"};
        indices.push_back(*value);
      }
      prev.push_back(indices[next_index++]);
    } else {
      const std::int64_t begin = a < step.entries.size() ? step.entries[a].begin : std::int64_t{0};
      prev.push_back(arith.mul_add(cur[next++], 1, begin));
    }
  }
  return {};
}

} // namespace

const NaiveDType& naive_dtype(tile::DType d) {
  using Sign = NaiveDType::Sign;
  static constexpr auto rows = enum_table<tile::DType::b64>(std::to_array<NaiveDType>({
      {1, 0, Sign::unsigned_}, // uint8
      {1, 0, Sign::signed_},   // int8
      {2, 0, Sign::unsigned_}, // uint16
      {2, 0, Sign::signed_},   // int16
      {2, 11, Sign::signed_},  // float16
      {2, 8, Sign::signed_},   // bfloat16
      {4, 0, Sign::unsigned_}, // uint32
      {4, 0, Sign::signed_},   // int32
      {4, 24, Sign::signed_},  // float32
      {8, 0, Sign::unsigned_}, // uint64
      {8, 0, Sign::signed_},   // int64
      {8, 53, Sign::signed_},  // float64
      {1, 0, Sign::untyped},   // b8
      {2, 0, Sign::untyped},   // b16
      {4, 0, Sign::untyped},   // b32
      {8, 0, Sign::untyped},   // b64
  }));
  return row_of(rows, d);
}

unsigned naive_dtype_bytes(tile::DType d) {
  return naive_dtype(d).bytes;
}

Fallible<NaivePattern> parse_naive_pattern(std::string_view text) {
  std::string err;
  NaivePattern p;
  const auto arrow = text.find("->");
  if (arrow == std::string_view::npos || text.find("->", arrow + 2) != std::string_view::npos) {
    err = "expected exactly one '->'";
  } else if (auto lhs = parse_side(text.substr(0, arrow), p.lhs); !lhs) {
    err = lhs.error();
  } else if (auto rhs = parse_side(text.substr(arrow + 2), p.rhs); !rhs) {
    err = rhs.error();
  } else {
    std::set<std::string, std::less<>> left;
    std::set<std::string, std::less<>> right;
    for (const auto& g : p.lhs) {
      for (const auto& n : g) {
        if (!left.insert(n).second && err.empty()) {
          err = "'" + n + "' appears twice on the left";
        }
      }
    }
    for (const auto& g : p.rhs) {
      for (const auto& n : g) {
        if (!right.insert(n).second && err.empty()) {
          err = "'" + n + "' appears twice on the right";
        }
      }
    }
    if (err.empty() && left != right) {
      err = "the two sides do not name the same axes";
    }
  }
  if (!err.empty()) {
    return Failure{std::move(err)};
  }
  return p;
}

NaivePlan naive_plan(const tile::View& v) {
  NaivePlan plan;
  if (v.tensor == nullptr) {
    plan.error = "the view has no tensor";
    return plan;
  }
  plan.dtype = v.tensor->dtype;
  plan.swizzle = v.tensor->swizzle;
  plan.levels.push_back({v.tensor->shape, naive_dtype_bytes(v.tensor->dtype)});
  plan.patterns.resize(v.steps.size());
  plan.name_sizes.resize(v.steps.size());
  plan.names.resize(v.steps.size());
  for (std::size_t i = 0; i < v.steps.size(); ++i) {
    const NaivePlan::Level& in = plan.levels.back();
    NaivePlan::Level out{{}, in.element_bytes};
    Status planned = std::visit(
        [&](const auto& step) -> Status {
          using S = std::decay_t<decltype(step)>;
          if constexpr (std::is_same_v<S, tile::RearrangeStep>) {
            Status r =
                plan_rearrange(step, in.shape, plan.patterns[i], plan.name_sizes[i], out.shape);
            if (r && !resolve_names(plan.patterns[i], plan.name_sizes[i], plan.names[i]))
              return Failure{}; // no reason of its own: the message ends at "step N: "
            return r;
          } else if constexpr (std::is_same_v<S, tile::SubStep>) {
            return plan_sub(step, in.shape, out.shape);
          } else {
            out.shape = in.shape;
            out.element_bytes = naive_dtype_bytes(step.dtype);
            plan.dtype = step.dtype;
            if (in.shape.empty()) {
              if (out.element_bytes != in.element_bytes)
                return Failure{"a dtype view of a rank-0 view must keep the element size"};
              return {};
            }
            const std::int64_t bytes = in.shape.back() * in.element_bytes;
            if (bytes % out.element_bytes != 0)
              return Failure{"the last axis has " + std::to_string(bytes) +
                             " bytes, not a multiple of " + std::to_string(out.element_bytes)};
            out.shape.back() = bytes / out.element_bytes;
            return {};
          }
        },
        v.steps[i]);
    if (!planned) {
      plan.error = "step " + std::to_string(i + 1) + ": " + planned.error();
      return plan;
    }
    plan.levels.push_back(std::move(out));
  }
  return plan;
}

NaiveLocation naive_locate(const NaivePlan& plan, const tile::View& v, const tile::ExprEnv& env,
                           std::span<const std::int64_t> coords) {
  NaiveLocation loc;
  if (!plan.ok()) {
    loc.error = plan.error;
    return loc;
  }
  if (coords.size() != plan.shape().size()) {
    loc.error = "expected " + std::to_string(plan.shape().size()) + " coordinates, got " +
                std::to_string(coords.size());
    return loc;
  }
  auto check_range = [&](const std::vector<std::int64_t>& c, std::size_t level) {
    const auto& shape = plan.levels[level].shape;
    for (std::size_t a = 0; a < c.size(); ++a) {
      if ((c[a] < 0 || c[a] >= shape[a]) && loc.in_bounds) {
        loc.in_bounds = false;
        loc.error = "coordinate " + std::to_string(c[a]) + " of axis " + std::to_string(a) +
                    " (size " + std::to_string(shape[a]) + ") at step " + std::to_string(level);
      }
    }
  };
  NaiveArith arith;
  const unsigned eb = plan.element_bytes();
  // The sub steps' index values: the same for every byte of the element, evaluated once
  // (on the first byte's walk, as that walk reaches them).
  std::vector<std::vector<std::int64_t>> index_values(v.steps.size());
  std::vector<std::int64_t> cur;
  std::vector<std::int64_t> prev;
  std::vector<std::int64_t> digit; // a rearrange's names' values, by resolved index
  for (unsigned byte0 = 0; byte0 < eb; ++byte0) {
    cur.assign(coords.begin(), coords.end());
    std::int64_t byte = byte0;
    for (std::size_t i = v.steps.size(); i-- > 0;) {
      check_range(cur, i + 1);
      prev.clear();
      bool ok = true;
      std::visit(
          [&](const auto& step) {
            using S = std::decay_t<decltype(step)>;
            if constexpr (std::is_same_v<S, tile::RearrangeStep>) {
              naive_unrearrange(plan.names[i], cur, digit, prev, arith);
            } else if constexpr (std::is_same_v<S, tile::SubStep>) {
              auto unsub = naive_unsub(step, plan.levels[i].shape.size(), env, byte0 == 0,
                                       index_values[i], cur, prev, arith);
              if (!unsub) {
                ok = false;
                loc.error = unsub.error();
              }
            } else {
              prev = cur;
              if (!prev.empty()) {
                const std::int64_t p = arith.mul_add(cur.back(), plan.levels[i + 1].element_bytes,
                                                     byte); // byte of the last axis
                const std::int64_t s1 = plan.levels[i].element_bytes;
                prev.back() = p / s1;
                byte = p % s1;
              }
            }
          },
          v.steps[i]);
      if (arith.overflow) {
        ok = false;
        loc.error = "the element's coordinates do not fit in 64 bits";
      }
      if (!ok) {
        loc.offsets.clear();
        loc.in_bounds = false;
        return loc;
      }
      std::swap(cur, prev);
    }
    check_range(cur, 0);
    std::int64_t flat = 0;
    for (std::size_t a = 0; a < cur.size(); ++a)
      flat = arith.mul_add(flat, plan.levels[0].shape[a], cur[a]);
    const std::int64_t offset = arith.mul_add(flat, plan.levels[0].element_bytes, byte);
    if (arith.overflow) {
      loc.offsets.clear();
      loc.in_bounds = false;
      loc.error = "the element's byte offset does not fit in 64 bits";
      return loc;
    }
    loc.offsets.push_back(naive_swizzle(plan.swizzle, offset));
  }
  return loc;
}

std::vector<std::int64_t> naive_byte_offsets(const tile::View& v, const tile::ExprEnv& env,
                                             std::span<const std::int64_t> coords) {
  const NaivePlan plan = naive_plan(v);
  NaiveLocation loc = naive_locate(plan, v, env, coords);
  return std::move(loc.offsets);
}

std::optional<std::vector<std::int64_t>> naive_shape(const tile::View& v) {
  NaivePlan plan = naive_plan(v);
  if (!plan.ok()) {
    return std::nullopt;
  }
  return plan.levels.back().shape;
}

} // namespace ptxgen::driver
