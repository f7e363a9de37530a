// The TOML reader's value strings and tables: cache policies, fill patterns and
// [[expect]] tables. The strings' own languages are the builder's (build::Builder::
// cache_policy, pattern, expectation); this reads the TOML around them.

#include "driver/toml/reader.hpp"

namespace ptxgen::driver::toml_reader {

build::Text Loader::region_text(const toml::node& n, std::string value) const {
  const build::At a = at(n.source());
  return build::Text{std::move(value), a.pos, false, a.length};
}

std::optional<tile::Located<tile::CachePolicy>>
Loader::cache_policy_field(const toml::node& v, const std::string& where) {
  if (const toml::table* t = v.as_table())
    return cache_policy_table(*t, where, pos_of(v.source().begin));
  const auto* s = v.as_string();
  if (!s) {
    wrong_type(v, "cache_policy", where, "a u64 parameter name, \"createpolicy(...)\" or a table");
    return std::nullopt;
  }
  return b_.cache_policy(text_of(v, s->get()));
}

std::optional<tile::Located<tile::CachePolicy>>
Loader::cache_policy_table(const toml::table& t, const std::string& where, const SourcePos& pos) {
  const std::string tw = "the cache_policy table of " + where;
  build::PolicyParts parts;
  bool ok = true;
  if (const toml::node* p = t.get("param")) {
    constexpr std::array<std::string_view, 1> keys = {"param"};
    check_keys(t, keys, tw);
    auto s = get_string(*p, "param", tw, "the name of a u64 parameter");
    if (!s)
      return std::nullopt;
    parts.param = region_text(*p, *s);
    return b_.cache_policy(parts, pos);
  }
  constexpr std::array<std::string_view, 3> keys = {"primary", "secondary", "fraction"};
  check_keys(t, keys, tw);
  if (const toml::node* v = t.get("primary")) {
    auto s = get_string(*v, "primary", tw, "an eviction priority such as \"evict_last\"");
    ok = s.has_value();
    if (s)
      parts.primary = region_text(*v, *s);
  } else {
    missing(t, "primary", tw, build::eviction_priorities(false));
    ok = false;
  }
  if (const toml::node* v = t.get("secondary")) {
    auto s = get_string(*v, "secondary", tw, build::eviction_priorities(true));
    ok = s.has_value() && ok;
    if (s)
      parts.secondary = region_text(*v, *s);
  }
  if (const toml::node* v = t.get("fraction")) {
    build::PolicyParts::Fraction f{std::nullopt, region_text(*v, {})};
    if (const auto* x = v->as_floating_point())
      f.value = x->get();
    else if (const auto* i = v->as_integer())
      f.value = static_cast<double>(i->get());
    parts.fraction = f;
  }
  auto policy = b_.cache_policy(parts, pos);
  if (!ok)
    return std::nullopt;
  return policy;
}

std::optional<std::vector<std::uint8_t>> Loader::parse_pattern(const toml::node& v) {
  if (const auto* i = v.as_integer()) {
    const build::PatternByte byte{i->get(), region_text(v, {})};
    return b_.pattern(std::span(&byte, 1), true, region_text(v, {}));
  }
  if (const auto* a = v.as_array()) {
    std::vector<build::PatternByte> bytes;
    for (const toml::node& e : *a) {
      const auto* i = e.as_integer();
      bytes.push_back(
          build::PatternByte{i ? std::optional(i->get()) : std::nullopt, region_text(e, {})});
    }
    return b_.pattern(bytes, false, region_text(v, {}));
  }
  if (const auto* s = v.as_string())
    return b_.pattern(text_of(v, s->get()));
  type_error(v, "pattern must be a byte 0..255, an array of bytes such as [0xDE, 0xAD] or a hex "
                "string such as \"0xDEADBEEF\"; got " +
                    std::string(type_phrase(v.type())));
  return std::nullopt;
}

void Loader::load_expectations(const toml::node& n) {
  each_table(n, "expectations must be an array of tables: write each as [[expect]]", "[[expect]]",
             [&](const toml::table& t, const std::string& where) {
               check_keys(t, kExpectKeys, where);
               const toml::node* v = nullptr;
               auto s = required_string(t, "that", where, kExpectExample, kExpectExample, v);
               if (!s)
                 return;
               if (auto x = b_.expectation(text_of(*v, *s)))
                 b_.expectation(std::move(*x));
             });
}

} // namespace ptxgen::driver::toml_reader
