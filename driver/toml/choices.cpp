#include "driver/toml/choices.hpp"

#include <sstream>

#include <toml++/toml.h>

namespace ptxgen::toml_choices {

namespace {

/// The dotted path's segments; an empty one is a failure.
Fallible<std::vector<std::string>> segments(const std::string& key) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const auto dot = key.find('.', at);
    std::string s = key.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    if (s.empty())
      return Failure{"'" + key + "': an empty segment in the key path"};
    out.push_back(std::move(s));
    if (dot == std::string::npos)
      return out;
    at = dot + 1;
  }
}

/// The value of `text` as TOML (`3`, `[32, 1, 1]`, `"cta"`): a table whose `v` it is.
Fallible<toml::table> value_of(const std::string& text, const std::string& key) {
  try {
    toml::table t = toml::parse("v = " + text);
    if (t.size() != 1 || !t.get("v"))
      return Failure{"--choose " + key + "=" + text + ": not one TOML value"};
    return t;
  } catch (const toml::parse_error& e) {
    return Failure{"--choose " + key + "=" + text + ": not a TOML value (" +
                   std::string(e.description()) + ")"};
  }
}

/// Sets the node at `path` of `root` to `value`. The path walks tables by key and arrays (an
/// [[op]] list) by a decimal index.
Status assign(toml::table& root, const std::vector<std::string>& path, const toml::node& value,
              const std::string& key) {
  toml::node* at = &root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (toml::table* t = at->as_table()) {
      at = t->get(path[i]);
    } else if (toml::array* a = at->as_array()) {
      std::size_t index = 0;
      const bool digits =
          !path[i].empty() && path[i].find_first_not_of("0123456789") == std::string::npos;
      if (digits)
        index = std::stoul(path[i]);
      at = digits && index < a->size() ? a->get(index) : nullptr;
    } else {
      at = nullptr;
    }
    if (!at)
      return Failure{"--choose " + key + ": the spec has no '" + path[i] + "' there"};
  }
  toml::table* parent = at->as_table();
  if (!parent)
    return Failure{"--choose " + key + ": '" + path[path.size() - 2] + "' is not a table"};
  value.visit([&](const auto& v) { parent->insert_or_assign(path.back(), v); });
  return {};
}

} // namespace

Fallible<Choice> parse_choice(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    return Failure{"expected KEY=V1,V2,... (e.g. kernel.ctas_per_sm=1,2,3), got '" +
                   std::string(text) + "'"};
  Choice c{std::string(text.substr(0, eq)), {}};
  std::string value;
  int depth = 0;
  bool quoted = false;
  for (char ch : text.substr(eq + 1)) {
    if (ch == '"')
      quoted = !quoted;
    else if (!quoted && ch == '[')
      ++depth;
    else if (!quoted && ch == ']')
      --depth;
    if (ch == ',' && depth == 0 && !quoted) {
      c.values.push_back(value);
      value.clear();
    } else {
      value += ch;
    }
  }
  c.values.push_back(value);
  for (const auto& v : c.values)
    if (v.empty())
      return Failure{"'" + std::string(text) + "': an empty value"};
  if (depth != 0 || quoted)
    return Failure{"'" + std::string(text) + "': an unclosed [ or \""};
  return c;
}

Fallible<std::vector<Candidate>> expand_choices(std::string_view spec_text, const std::string& file,
                                                const std::vector<Choice>& choices) {
  toml::table root;
  try {
    root = toml::parse(spec_text, std::string_view(file));
  } catch (const toml::parse_error& e) {
    return Failure{file + ":" + std::to_string(e.source().begin.line) + ":" +
                   std::to_string(e.source().begin.column) +
                   ": invalid TOML: " + std::string(e.description())};
  }
  std::size_t total = 1;
  std::vector<std::vector<std::string>> paths;
  std::vector<std::vector<toml::table>> values(choices.size());
  for (std::size_t i = 0; i < choices.size(); ++i) {
    auto p = segments(choices[i].key);
    if (!p)
      return Failure{p.error()};
    paths.push_back(std::move(*p));
    for (const auto& text : choices[i].values) {
      auto v = value_of(text, choices[i].key);
      if (!v)
        return Failure{v.error()};
      values[i].push_back(std::move(*v));
    }
    total *= choices[i].values.size();
    if (total > max_candidates)
      return Failure{"the choices make more than " + std::to_string(max_candidates) +
                     " candidates"};
  }
  std::vector<Candidate> out;
  for (std::size_t n = 0; n < total; ++n) {
    toml::table spec = root;
    Candidate c;
    std::size_t rest = n;
    for (std::size_t i = choices.size(); i-- > 0;) {
      const std::size_t pick = rest % choices[i].values.size();
      rest /= choices[i].values.size();
      if (auto s = assign(spec, paths[i], *values[i][pick].get("v"), choices[i].key); !s)
        return Failure{s.error()};
      c.chosen.insert(c.chosen.begin(), {choices[i].key, choices[i].values[pick]});
    }
    std::ostringstream text;
    text << "# ptxgen tune candidate:";
    for (const auto& [k, v] : c.chosen)
      text << " " << k << "=" << v;
    text << "\n" << toml::toml_formatter(spec) << "\n";
    c.toml = text.str();
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace ptxgen::toml_choices
