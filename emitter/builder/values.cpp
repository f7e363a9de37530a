// The builder's value strings, the small languages a spec writes inside strings
// beside views and expressions: a tensor's init, a fill pattern, a cache policy and
// an expectation's `LEFT == RIGHT`. Each reports inside the string (see Text).
#include "emitter/builder/builder.hpp"
#include "emitter/builder/text.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/limits.hpp"
#include "emitter/tile/name_chars.hpp"
#include "emitter/tile/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

namespace ptxgen::build {

namespace {

/// An eviction priority, also written `.evict_last`, `L2::evict_last` or `.L2::evict_last`.
std::string_view without_priority_prefix(std::string_view s) {
  if (!s.empty() && s[0] == '.')
    s.remove_prefix(1);
  if (s.rfind("L2::", 0) == 0)
    s.remove_prefix(4);
  return s;
}

} // namespace

std::string eviction_priorities(bool secondary_only) {
  const bool all = !secondary_only;
  std::vector<std::string_view> names;
  for (std::string_view n : ptx::eviction_priority_spellings())
    if (all || ptx::allowed_as_secondary(*ptx::parse_eviction_priority(n)))
      names.push_back(n);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return out;
}

namespace {

std::optional<float> fraction_of(std::string_view s) {
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || p != s.data() + s.size() || !(d > 0.0 && d <= 1.0))
    return std::nullopt;
  return static_cast<float>(d);
}

/// The offset of the first `==` of `text` outside brackets and quotes, or npos.
std::size_t top_level_equals(std::string_view text) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (depth == 0 && c == '=' && text[i + 1] == '=') {
      return i;
    }
  }
  return std::string_view::npos;
}

} // namespace

// ---------------------------------------------------------------- init

std::string init_spelling(const tile::TensorInit& init) {
  using Kind = tile::TensorInit::Kind;
  switch (init.kind) {
  case Kind::zero:
    return "zero";
  case Kind::arange_mod:
    return "arange % " + std::to_string(init.modulus);
  case Kind::random:
    return "random(" + std::to_string(init.seed) + ")";
  case Kind::constant:
    return "constant(" + std::to_string(init.value) + ")";
  }
  unreachable("init_spelling(): not a TensorInit::Kind");
}

std::optional<tile::TensorInit> Builder::init(const Text& at) {
  const std::string& text = at.text;
  auto bad = [&](std::size_t offset, std::size_t length, std::string message) {
    error_in(DiagId::spec_bad_init, at, offset, std::max<std::size_t>(length, 1),
             std::move(message));
    return std::nullopt;
  };
  auto offset_of = [&](std::string_view part) {
    return static_cast<std::size_t>(part.data() - text.data());
  };
  std::size_t skip = 0;
  std::string_view s = trimmed(text, &skip);
  tile::TensorInit init;
  if (s == "zero" || s == "0")
    return init;
  auto call_arg = [&](std::string_view fn) -> std::optional<std::string_view> {
    if (s.rfind(fn, 0) != 0)
      return std::nullopt;
    std::string_view rest = trimmed(s.substr(fn.size()));
    if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')')
      return std::nullopt;
    return trimmed(rest.substr(1, rest.size() - 2));
  };
  if (s.rfind("arange", 0) == 0) {
    std::string_view rest = trimmed(s.substr(6));
    if (rest.empty() || rest[0] != '%')
      return bad(skip, s.size(), "arange needs a modulus: \"arange % M\"");
    std::string_view m = trimmed(rest.substr(1));
    auto v = integer_of<std::int64_t>(m);
    if (!v || *v < 1)
      return bad(offset_of(m), m.size(),
                 "the arange modulus must be a positive integer; got \"" + std::string(m) + "\"");
    init.kind = tile::TensorInit::Kind::arange_mod;
    init.modulus = *v;
    return init;
  }
  // random(SEED) and constant(V): one integer argument, which `field` takes.
  auto integer_call = [&]<class Int>(std::string_view a, std::string_view rule,
                                     tile::TensorInit::Kind kind,
                                     Int& field) -> std::optional<tile::TensorInit> {
    auto v = integer_of<Int>(a);
    if (!v)
      return bad(offset_of(a), a.size(), std::string(rule) + "; got \"" + std::string(a) + "\"");
    init.kind = kind;
    field = *v;
    return init;
  };
  if (auto a = call_arg("random"))
    return integer_call(*a, "the random seed must be a non-negative integer",
                        tile::TensorInit::Kind::random, init.seed);
  if (auto a = call_arg("constant"))
    return integer_call(*a, "the constant must be an integer", tile::TensorInit::Kind::constant,
                        init.value);
  constexpr std::array<std::string_view, 4> kinds = {"zero", "arange", "random", "constant"};
  std::size_t word = 0;
  while (word < s.size() && tile::name_char(s[word]))
    ++word;
  return bad(skip, s.size(),
             "unknown init " + quoted(s) +
                 tile::or_choices(tile::did_you_mean(s.substr(0, word), kinds),
                                  "; expected \"zero\", \"arange % M\", \"random(SEED)\" or "
                                  "\"constant(V)\""));
}

// ---------------------------------------------------------------- fill patterns

bool Builder::bad_pattern(const Text& at, std::size_t offset, std::size_t length,
                          std::string message) {
  error_in(DiagId::spec_bad_pattern, at, offset, length, std::move(message));
  return false;
}

bool Builder::pattern_size(std::size_t bytes, const Text& at) {
  return (bytes >= 1 && bytes <= tile::kMaxPatternBytes) ||
         bad_pattern(at, 0, at.text.size(),
                     "a pattern must have 1.." + std::to_string(tile::kMaxPatternBytes) +
                         " bytes; got " + std::to_string(bytes));
}

std::optional<std::vector<std::uint8_t>> Builder::pattern(std::span<const PatternByte> bytes,
                                                          bool single, const Text& at) {
  if (!single && !pattern_size(bytes.size(), at))
    return std::nullopt;
  std::vector<std::uint8_t> out;
  bool ok = true;
  for (const PatternByte& b : bytes) {
    if (b.value && *b.value >= 0 && *b.value <= 255) {
      out.push_back(static_cast<std::uint8_t>(*b.value));
      continue;
    }
    ok = bad_pattern(b.at, 0, b.at.text.size(),
                     single ? "a pattern byte must be in 0..255; got " +
                                  std::to_string(b.value.value_or(0))
                            : std::string("a pattern byte must be an integer in 0..255"));
  }
  if (!ok)
    return std::nullopt;
  return out;
}

std::optional<std::vector<std::uint8_t>> Builder::pattern(const Text& at) {
  const std::string& text = at.text;
  if (text.size() < 4 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') ||
      text.size() % 2 != 0) {
    bad_pattern(at, 0, text.size(),
                "a pattern string must be \"0x\" and an even number of hex digits (whole bytes), "
                "such as \"0xDEADBEEF\"");
    return std::nullopt;
  }
  if (!pattern_size((text.size() - 2) / 2, at))
    return std::nullopt;
  std::vector<std::uint8_t> out;
  for (std::size_t i = 2; i < text.size(); i += 2) {
    unsigned byte = 0;
    auto [p, ec] = std::from_chars(text.data() + i, text.data() + i + 2, byte, 16);
    if (ec != std::errc() || p != text.data() + i + 2) {
      std::size_t bad = i;
      while (bad < i + 2 && std::isxdigit(static_cast<unsigned char>(text[bad])))
        ++bad;
      bad_pattern(at, bad, 1, "expected a hex digit");
      return std::nullopt;
    }
    out.push_back(static_cast<std::uint8_t>(byte));
  }
  return out;
}

// ---------------------------------------------------------------- cache policies

bool Builder::bad_policy(const Text& at, std::size_t offset, std::size_t length,
                         std::string message) {
  error_in(DiagId::spec_bad_cache_policy, at, offset, std::max<std::size_t>(length, 1),
           std::move(message));
  return false;
}

std::optional<ptx::EvictionPriority> Builder::priority(const Text& at, std::size_t offset,
                                                       std::string_view word, bool secondary) {
  auto p = ptx::parse_eviction_priority(without_priority_prefix(word));
  if (p && (!secondary || ptx::allowed_as_secondary(*p)))
    return p;
  const std::size_t length = std::max<std::size_t>(word.size(), 1);
  if (secondary)
    error_in(DiagId::spec_bad_secondary_priority, at, offset, length,
             "the secondary eviction priority must be " + eviction_priorities(true) + "; got " +
                 quoted(word));
  else
    error_in(
        DiagId::spec_unknown_eviction_priority, at, offset, length,
        "unknown primary eviction priority " + quoted(word) +
            tile::did_you_mean(without_priority_prefix(word), ptx::eviction_priority_spellings()) +
            " (expected " + eviction_priorities(false) + ")");
  return std::nullopt;
}

std::optional<tile::Located<tile::CachePolicy>> Builder::cache_policy(const Text& at) {
  const std::string& text = at.text;
  std::size_t skip = 0;
  std::string_view s = trimmed(text, &skip);
  auto offset_of = [&](std::string_view part) {
    return static_cast<std::size_t>(part.data() - text.data());
  };
  std::string_view name = s;
  if (s.rfind("param:", 0) == 0)
    name = trimmed(s.substr(6));
  if (is_name(name) && name != "createpolicy") {
    if (!policy_param(name, at, offset_of(name)))
      return std::nullopt;
    return tile::Located<tile::CachePolicy>{tile::CachePolicyFromParam{std::string(name)}, text,
                                            at.pos};
  }
  constexpr std::string_view fn = "createpolicy";
  std::string_view rest = trimmed(s.substr(std::min(fn.size(), s.size())));
  if (name != s || s.rfind(fn, 0) != 0 || rest.size() < 2 || rest.front() != '(' ||
      rest.back() != ')') {
    const bool after_param = name != s;
    bad_policy(at, after_param ? offset_of(name) : skip, after_param ? name.size() : s.size(),
               after_param           ? "expected a parameter name after \"param:\""
               : s.rfind(fn, 0) != 0 ? "expected a u64 parameter name, \"param:NAME\" or "
                                       "\"createpolicy(evict_last[, evict_unchanged][, 0.5])\""
                                     : "expected \"createpolicy(PRIMARY[, SECONDARY][, "
                                       "FRACTION])\"");
    return std::nullopt;
  }
  std::string_view inside = rest.substr(1, rest.size() - 2);
  std::vector<std::string_view> args;
  while (true) {
    std::size_t comma = inside.find(',');
    args.push_back(trimmed(inside.substr(0, comma)));
    if (comma == std::string_view::npos)
      break;
    inside = inside.substr(comma + 1);
  }
  auto c = policy_args(at, args);
  if (!c)
    return std::nullopt;
  return tile::Located<tile::CachePolicy>{*c, text, at.pos};
}

/// createpolicy's arguments (pieces of `at.text`): PRIMARY[, SECONDARY][, FRACTION].
std::optional<tile::CachePolicyCreate>
Builder::policy_args(const Text& at, std::span<const std::string_view> args) {
  tile::CachePolicyCreate c;
  bool have_secondary = false;
  bool have_fraction = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    const std::size_t off = static_cast<std::size_t>(arg.data() - at.text.data());
    std::string problem;
    if (arg.empty()) {
      problem = "empty createpolicy argument";
    } else if (i == 0) {
      auto p = priority(at, off, arg, false);
      if (!p)
        return std::nullopt;
      c.primary = *p;
      continue;
    } else if (!have_fraction && !have_secondary &&
               ptx::parse_eviction_priority(without_priority_prefix(arg))) {
      auto p = priority(at, off, arg, true);
      if (!p)
        return std::nullopt;
      c.secondary = *p;
      have_secondary = true;
      continue;
    } else if (!have_fraction) {
      auto f = fraction_of(arg);
      if (f) {
        c.fraction = *f;
        have_fraction = true;
        continue;
      }
      problem = "expected a fraction in (0, 1] such as 0.5; got " + quoted(arg);
    } else {
      problem = "too many createpolicy arguments; expected (PRIMARY[, SECONDARY][, FRACTION])";
    }
    bad_policy(at, off, arg.size(), problem);
    return std::nullopt;
  }
  return c;
}

std::optional<tile::Located<tile::CachePolicy>> Builder::cache_policy(const PolicyParts& parts,
                                                                      const tile::SourcePos& pos) {
  if (parts.param) {
    if (!policy_param(parts.param->text, *parts.param))
      return std::nullopt;
    return tile::Located<tile::CachePolicy>{tile::CachePolicyFromParam{parts.param->text},
                                            "param:" + parts.param->text, pos};
  }
  tile::CachePolicyCreate c;
  bool ok = parts.primary.has_value();
  std::string text = "createpolicy(";
  if (parts.primary) {
    auto p = priority(*parts.primary, 0, parts.primary->text, false);
    ok = p.has_value();
    if (p) {
      c.primary = *p;
      text += parts.primary->text;
    }
  }
  if (parts.secondary) {
    auto p = priority(*parts.secondary, 0, parts.secondary->text, true);
    ok = p.has_value() && ok;
    if (p) {
      c.secondary = *p;
      text += ", " + parts.secondary->text;
    }
  }
  if (parts.fraction) {
    const std::optional<double>& d = parts.fraction->value;
    if (!d || !(*d > 0.0 && *d <= 1.0)) {
      ok = bad_policy(parts.fraction->at, 0, parts.fraction->at.text.size(),
                      "fraction must be a number in (0, 1]");
    } else {
      c.fraction = static_cast<float>(*d);
      std::ostringstream os;
      os << *d;
      text += ", " + os.str();
    }
  }
  if (!ok)
    return std::nullopt;
  return tile::Located<tile::CachePolicy>{c, text + ")", pos};
}

// ---------------------------------------------------------------- expectations

std::optional<tile::Expectation> Builder::expectation(const Text& at) {
  const std::string_view text = at.text;
  auto bad = [&](std::size_t offset, std::size_t length, std::string message) {
    error_in(DiagId::spec_expect_syntax, at, offset, length, std::move(message));
    return std::nullopt;
  };
  const std::size_t eq = top_level_equals(text);
  if (eq == std::string_view::npos)
    return bad(0, text.size(),
               "an expectation is 'LEFT == RIGHT' (\"B == A\", \"B.sub[:, 8:16] == 0\", "
               "\"B.sub[100:, :] == sentinel\"); this has no '=='");
  if (std::size_t again = top_level_equals(text.substr(eq + 2)); again != std::string_view::npos)
    return bad(eq + 2 + again, 2,
               "one '==' per expectation; write each equality as its own [[expect]]");
  std::size_t left_at = 0, right_at = 0;
  const std::string_view left = trimmed(text.substr(0, eq), &left_at);
  const std::string_view right = trimmed(text.substr(eq + 2), &right_at);
  right_at += eq + 2;
  if (left.empty() || right.empty())
    return bad(eq, 2,
               std::string("nothing ") + (left.empty() ? "left" : "right") +
                   " of '=='; expected a view such as B.sub[:, 0:8]");
  tile::Expectation x;
  x.that = tile::Located<std::string>{at.text, at.text, at.pos};
  const Text left_text = at.piece(left_at, left);
  auto lhs = view(left_text, expect_names(), tile::SliceBounds::parameters);
  if (!lhs || !expect_side(lhs->value, left_text))
    return std::nullopt;
  x.lhs = std::move(*lhs);
  const bool number = std::isdigit(static_cast<unsigned char>(right[0])) || right[0] == '-';
  if (right == "sentinel") {
    x.rhs = tile::ExpectSentinel{};
  } else if (number) {
    auto v = integer_of<std::int64_t>(right);
    if (!v)
      return bad(right_at, right.size(), "expected a view, an integer or `sentinel` right of '=='");
    if (!expect_value(x.lhs.value, *v, at.piece(right_at, right), left))
      return std::nullopt;
    x.rhs = *v;
  } else {
    const Text right_text = at.piece(right_at, right);
    auto rhs = view(right_text, expect_names(), tile::SliceBounds::parameters);
    if (!rhs || !expect_side(rhs->value, right_text) ||
        !expect_same_shape(x.lhs.value, rhs->value, left_text, right_text))
      return std::nullopt;
    x.rhs = std::move(*rhs);
  }
  return x;
}

bool Builder::expect_value(const tile::View& lhs, std::int64_t value, const Text& at,
                           std::string_view lhs_text) {
  if (tile::holds_exactly(lhs.dtype, value))
    return true;
  error_in(DiagId::spec_expect_value_range, at, 0, at.text.size(),
           at.text + " is no exact value of " + std::string(tile::name(lhs.dtype)) +
               ", the element type of " + std::string(lhs_text));
  return false;
}

} // namespace ptxgen::build
