// The TOML reader's value strings and tables: cache policies, fill patterns and
// [[expect]] tables.

#include "driver/spec/reader.hpp"

namespace ptxgen::driver::toml_reader {

/// "evict_last, evict_normal, evict_first or evict_unchanged" (all == false: the secondaries).
std::string Loader::priority_list(bool all) {
  std::vector<std::string_view> names;
  for (std::string_view n : ptx::eviction_priority_spellings())
    if (all || ptx::allowed_as_secondary(*ptx::parse_eviction_priority(n)))
      names.push_back(n);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return out;
}

std::optional<tile::Located<tile::CachePolicy>>
Loader::cache_policy_field(const toml::node& v, const std::string& where) {
  const SourcePos pos = pos_of(v.source().begin);
  if (const toml::table* t = v.as_table())
    return cache_policy_table(*t, where, pos);
  const auto* sv = v.as_string();
  if (!sv) {
    wrong_type(v, "cache_policy", where, "a u64 parameter name, \"createpolicy(...)\" or a table");
    return std::nullopt;
  }
  const std::string& text = sv->get();
  const StringLoc loc = locate_string(v);
  std::size_t skip = 0;
  std::string_view s = trim(text, &skip);
  auto offset_of = [&](std::string_view part) {
    return static_cast<std::size_t>(part.data() - text.data());
  };
  std::string_view name = s;
  if (s.rfind("param:", 0) == 0)
    name = trim(s.substr(6));
  if (is_identifier(name) && name != "createpolicy") {
    if (!b_.policy_param(name, text_of(v, text), offset_of(name)))
      return std::nullopt;
    return tile::Located<tile::CachePolicy>{tile::CachePolicyFromParam{std::string(name)}, text,
                                            loc.pos};
  }
  if (name != s) {
    inner_error(DiagId::spec_bad_cache_policy, loc, text, offset_of(name),
                std::max<std::size_t>(name.size(), 1),
                "expected a parameter name after \"param:\"");
    return std::nullopt;
  }
  constexpr std::string_view fn = "createpolicy";
  if (s.rfind(fn, 0) != 0) {
    inner_error(DiagId::spec_bad_cache_policy, loc, text, skip, std::max<std::size_t>(s.size(), 1),
                "expected a u64 parameter name, \"param:NAME\" or "
                "\"createpolicy(evict_last[, evict_unchanged][, 0.5])\"");
    return std::nullopt;
  }
  std::string_view rest = trim(s.substr(fn.size()));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') {
    inner_error(DiagId::spec_bad_cache_policy, loc, text, skip, s.size(),
                "expected \"createpolicy(PRIMARY[, SECONDARY][, FRACTION])\"");
    return std::nullopt;
  }
  std::string_view inside = rest.substr(1, rest.size() - 2);
  std::vector<std::string_view> args;
  while (true) {
    std::size_t comma = inside.find(',');
    args.push_back(trim(inside.substr(0, comma)));
    if (comma == std::string_view::npos)
      break;
    inside = inside.substr(comma + 1);
  }
  tile::CachePolicyCreate c;
  bool have_secondary = false;
  bool have_fraction = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    const std::size_t off = offset_of(arg);
    const std::size_t len = std::max<std::size_t>(arg.size(), 1);
    if (arg.empty()) {
      inner_error(DiagId::spec_bad_cache_policy, loc, text, off, 1, "empty createpolicy argument");
      return std::nullopt;
    }
    if (i == 0) {
      auto p = parse_priority(arg);
      if (!p) {
        inner_error(
            DiagId::spec_unknown_eviction_priority, loc, text, off, len,
            "unknown primary eviction priority " + squote(arg) +
                did_you_mean(strip_priority_prefix(arg), ptx::eviction_priority_spellings()) +
                " (expected " + priority_list(true) + ")");
        return std::nullopt;
      }
      c.primary = *p;
      continue;
    }
    if (!have_fraction && !have_secondary && parse_priority(arg)) {
      auto p = parse_priority(arg);
      if (!ptx::allowed_as_secondary(*p)) {
        inner_error(DiagId::spec_bad_secondary_priority, loc, text, off, len,
                    "the secondary eviction priority must be " + priority_list(false) + "; got " +
                        squote(arg));
        return std::nullopt;
      }
      c.secondary = *p;
      have_secondary = true;
      continue;
    }
    if (!have_fraction) {
      auto f = parse_fraction(arg);
      if (!f) {
        inner_error(DiagId::spec_bad_cache_policy, loc, text, off, len,
                    "expected a fraction in (0, 1] such as 0.5; got " + squote(arg));
        return std::nullopt;
      }
      c.fraction = *f;
      have_fraction = true;
      continue;
    }
    inner_error(DiagId::spec_bad_cache_policy, loc, text, off, len,
                "too many createpolicy arguments; expected (PRIMARY[, SECONDARY][, FRACTION])");
    return std::nullopt;
  }
  return tile::Located<tile::CachePolicy>{c, text, loc.pos};
}

std::optional<tile::Located<tile::CachePolicy>>
Loader::cache_policy_table(const toml::table& t, const std::string& where, const SourcePos& pos) {
  const std::string tw = "the cache_policy table of " + where;
  if (const toml::node* p = t.get("param")) {
    constexpr std::array<std::string_view, 1> keys = {"param"};
    check_keys(t, keys, tw);
    auto s = get_string(*p, "param", tw, "the name of a u64 parameter");
    if (!s)
      return std::nullopt;
    const build::At a = at(p->source());
    if (!b_.policy_param(*s, build::Text{*s, a.pos, false, a.length}))
      return std::nullopt;
    return tile::Located<tile::CachePolicy>{tile::CachePolicyFromParam{*s}, "param:" + *s, pos};
  }
  constexpr std::array<std::string_view, 3> keys = {"primary", "secondary", "fraction"};
  check_keys(t, keys, tw);
  tile::CachePolicyCreate c;
  bool ok = true;
  std::string text = "createpolicy(";
  if (const toml::node* v = t.get("primary")) {
    auto s = get_string(*v, "primary", tw, "an eviction priority such as \"evict_last\"");
    auto p = s ? parse_priority(*s) : std::nullopt;
    if (s && !p)
      error_at(DiagId::spec_unknown_eviction_priority, v->source(),
               "unknown primary eviction priority " + squote(*s) +
                   did_you_mean(strip_priority_prefix(*s), ptx::eviction_priority_spellings()) +
                   " (expected " + priority_list(true) + ")");
    if (p) {
      c.primary = *p;
      text += *s;
    } else {
      ok = false;
    }
  } else {
    missing(t, "primary", tw, priority_list(true));
    ok = false;
  }
  if (const toml::node* v = t.get("secondary")) {
    auto s = get_string(*v, "secondary", tw, priority_list(false));
    auto p = s ? parse_priority(*s) : std::nullopt;
    if (s && (!p || !ptx::allowed_as_secondary(*p)))
      error_at(DiagId::spec_bad_secondary_priority, v->source(),
               "the secondary eviction priority must be " + priority_list(false) + "; got " +
                   squote(*s));
    if (p && ptx::allowed_as_secondary(*p)) {
      c.secondary = *p;
      text += ", " + *s;
    } else {
      ok = false;
    }
  }
  if (const toml::node* v = t.get("fraction")) {
    std::optional<double> d;
    if (const auto* f = v->as_floating_point())
      d = f->get();
    else if (const auto* i = v->as_integer())
      d = static_cast<double>(i->get());
    if (!d || !(*d > 0.0 && *d <= 1.0)) {
      error_at(DiagId::spec_bad_cache_policy, v->source(), "fraction must be a number in (0, 1]");
      ok = false;
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

std::optional<std::vector<std::uint8_t>> Loader::parse_pattern(const toml::node& v) {
  const std::string expected =
      "a byte 0..255, an array of bytes such as [0xDE, 0xAD] or a hex string such as "
      "\"0xDEADBEEF\"";
  if (const auto* i = v.as_integer()) {
    if (i->get() < 0 || i->get() > 255) {
      error_at(DiagId::spec_bad_pattern, v.source(),
               "a pattern byte must be in 0..255; got " + std::to_string(i->get()));
      return std::nullopt;
    }
    return std::vector<std::uint8_t>{static_cast<std::uint8_t>(i->get())};
  }
  if (const auto* a = v.as_array()) {
    if (!b_.pattern_size(a->size(), at(v.source())))
      return std::nullopt;
    std::vector<std::uint8_t> out;
    bool ok = true;
    for (const toml::node& e : *a) {
      const auto* i = e.as_integer();
      if (!i || i->get() < 0 || i->get() > 255) {
        error_at(DiagId::spec_bad_pattern, e.source(),
                 "a pattern byte must be an integer in 0..255");
        ok = false;
        continue;
      }
      out.push_back(static_cast<std::uint8_t>(i->get()));
    }
    if (!ok)
      return std::nullopt;
    return out;
  }
  if (const auto* s = v.as_string()) {
    const std::string& text = s->get();
    const StringLoc loc = locate_string(v);
    if (text.size() < 4 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') ||
        text.size() % 2 != 0) {
      inner_error(DiagId::spec_bad_pattern, loc, text, 0, std::max<std::size_t>(text.size(), 1),
                  "a pattern string must be \"0x\" and an even number of hex digits (whole "
                  "bytes), such as \"0xDEADBEEF\"");
      return std::nullopt;
    }
    if (!b_.pattern_size((text.size() - 2) / 2, text_of(v, text).at(0, text.size())))
      return std::nullopt;
    std::vector<std::uint8_t> out;
    for (std::size_t i = 2; i < text.size(); i += 2) {
      unsigned byte = 0;
      auto [p, ec] = std::from_chars(text.data() + i, text.data() + i + 2, byte, 16);
      if (ec != std::errc() || p != text.data() + i + 2) {
        std::size_t bad = i;
        while (bad < i + 2 && std::isxdigit(static_cast<unsigned char>(text[bad])))
          ++bad;
        inner_error(DiagId::spec_bad_pattern, loc, text, bad, 1, "expected a hex digit");
        return std::nullopt;
      }
      out.push_back(static_cast<std::uint8_t>(byte));
    }
    return out;
  }
  error_at(DiagId::spec_wrong_type, v.source(),
           "pattern must be " + expected + "; got " + type_phrase(v.type()));
  return std::nullopt;
}

void Loader::load_expectations(const toml::node& n) {
  const toml::array* list = n.as_array();
  if (!list) {
    error_at(DiagId::spec_wrong_type, n.source(),
             "expectations must be an array of tables: write each as [[expect]] (two "
             "brackets); got " +
                 std::string(type_phrase(n.type())));
    return;
  }
  std::size_t index = 0;
  for (const toml::node& e : *list) {
    const std::string where = "[[expect]] " + std::to_string(++index);
    const toml::table* t = e.as_table();
    if (!t) {
      error_at(DiagId::spec_wrong_type, e.source(),
               where + " must be a table; got " + type_phrase(e.type()));
      continue;
    }
    check_keys(*t, kExpectKeys, where);
    const toml::node* v = t->get("that");
    if (!v) {
      missing(*t, "that", where, kExpectExample);
      continue;
    }
    auto s = get_string(*v, "that", where, kExpectExample);
    if (!s)
      continue;
    if (auto x = expectation(*s, locate_string(*v)))
      b_.expectation(std::move(*x));
  }
}

/// The offset of the first `==` of `text` outside brackets and quotes, or npos.
std::size_t Loader::top_level_equals(std::string_view text) {
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

std::optional<tile::Expectation> Loader::expectation(const std::string& s, const StringLoc& loc) {
  const std::string_view text = s;
  const std::size_t eq = top_level_equals(text);
  if (eq == std::string_view::npos) {
    inner_error(DiagId::spec_expect_syntax, loc, text, 0, text.size(),
                "an expectation is 'LEFT == RIGHT' (\"B == A\", \"B.sub[:, 8:16] == 0\", "
                "\"B.sub[100:, :] == sentinel\"); this has no '=='");
    return std::nullopt;
  }
  if (std::size_t again = top_level_equals(text.substr(eq + 2)); again != std::string_view::npos) {
    inner_error(DiagId::spec_expect_syntax, loc, text, eq + 2 + again, 2,
                "one '==' per expectation; write each equality as its own [[expect]]");
    return std::nullopt;
  }
  std::size_t left_at = 0, right_at = 0;
  const std::string_view left = trim(text.substr(0, eq), &left_at);
  const std::string_view right = trim(text.substr(eq + 2), &right_at);
  right_at += eq + 2;
  if (left.empty() || right.empty()) {
    inner_error(DiagId::spec_expect_syntax, loc, text, eq, 2,
                std::string("nothing ") + (left.empty() ? "left" : "right") +
                    " of '=='; expected a view such as B.sub[:, 0:8]");
    return std::nullopt;
  }
  tile::Expectation x;
  x.that = tile::Located<std::string>{s, s, loc.pos};
  const build::Text whole{s, loc.pos, loc.exact, 1};
  const build::Text left_text = whole.piece(left_at, left);
  auto lhs = expect_view(left_text);
  if (!lhs)
    return std::nullopt;
  x.lhs = std::move(*lhs);
  if (right == "sentinel") {
    x.rhs = tile::ExpectSentinel{};
  } else if (std::isdigit(static_cast<unsigned char>(right[0])) || right[0] == '-') {
    auto v = parse_integer<std::int64_t>(right);
    if (!v) {
      inner_error(DiagId::spec_expect_syntax, loc, text, right_at, right.size(),
                  "expected a view, an integer or `sentinel` right of '=='");
      return std::nullopt;
    }
    if (!expect_value_bytes(x.lhs.value.dtype, *v)) {
      inner_error(DiagId::spec_expect_value_range, loc, text, right_at, right.size(),
                  std::string(right) + " is no exact value of " +
                      std::string(tile::name(x.lhs.value.dtype)) + ", the element type of " +
                      std::string(left));
      return std::nullopt;
    }
    x.rhs = *v;
  } else {
    const build::Text right_text = whole.piece(right_at, right);
    auto rhs = expect_view(right_text);
    if (!rhs || !b_.expect_same_shape(x.lhs.value, rhs->value, left_text, right_text))
      return std::nullopt;
    x.rhs = std::move(*rhs);
  }
  return x;
}

} // namespace ptxgen::driver::toml_reader
