// `ptxgen lint`: what it reads from the PTX text itself (detail.hpp): the `.func`s of a file
// with no entry, and `.maxntid`, which the simulator's parse skips.

#include "driver/lint/detail.hpp"

#include <cctype>

namespace ptxgen::lint::detail {

namespace {

/// The text with comments blanked (same length, newlines kept), so offsets stay valid.
std::string strip_comments(std::string_view text) {
  std::string out(text);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '"') { // a string (a .file directive's path)
      for (++i; i < out.size() && out[i] != '"' && out[i] != '\n'; ++i) {
      }
    } else if (out.compare(i, 2, "//") == 0) {
      for (; i < out.size() && out[i] != '\n'; ++i)
        out[i] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      for (; i < out.size() && out.compare(i, 2, "*/") != 0; ++i)
        out[i] = out[i] == '\n' ? '\n' : ' ';
      if (i < out.size())
        out[i] = out[i + 1] = ' ';
    }
  }
  return out;
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '.';
}

/// Offsets of the word `word` (not part of a longer identifier) in `s`.
std::vector<std::size_t> word_offsets(const std::string& s, std::string_view word) {
  std::vector<std::size_t> out;
  for (std::size_t at = s.find(word); at != std::string::npos; at = s.find(word, at + 1)) {
    const bool before = at == 0 || !ident_char(s[at - 1]);
    const bool after = at + word.size() >= s.size() || !ident_char(s[at + word.size()]);
    if (before && after)
      out.push_back(at);
  }
  return out;
}

std::size_t skip_space(const std::string& s, std::size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])) != 0)
    ++i;
  return i;
}

/// Past the parenthesised list opening at `i` (s[i] == '(').
std::size_t skip_parens(const std::string& s, std::size_t i) {
  int depth = 0;
  for (; i < s.size(); ++i) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0)
      return i + 1;
  }
  return s.size();
}

} // namespace

bool has_entry(std::string_view text) {
  return !word_offsets(strip_comments(text), ".entry").empty();
}

std::vector<FuncDef> defined_funcs(std::string_view text) {
  const std::string s = strip_comments(text);
  std::vector<FuncDef> out;
  for (const std::size_t at : word_offsets(s, ".func")) {
    FuncDef f;
    f.keyword = at;
    std::size_t i = skip_space(s, at + 5);
    if (i < s.size() && s[i] == '(') {
      f.returns = true;
      i = skip_space(s, skip_parens(s, i));
    }
    const std::size_t name_at = i;
    while (i < s.size() && ident_char(s[i]))
      ++i;
    f.name = s.substr(name_at, i - name_at);
    i = skip_space(s, i);
    if (i < s.size() && s[i] == '(')
      i = skip_parens(s, i);
    const std::size_t end = s.find_first_of("{;", i);
    if (!f.name.empty() && end != std::string::npos && s[end] == '{')
      out.push_back(std::move(f));
  }
  return out;
}

std::string as_entry(std::string_view text, const FuncDef& f) {
  std::string out(text);
  // Linkage before the keyword, on its line: `.visible` / `.weak` / `.extern` -> `.visible`.
  std::size_t line_start = out.rfind('\n', f.keyword);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  std::string head = out.substr(line_start, f.keyword - line_start);
  for (const std::string_view linkage : {".weak", ".extern"}) {
    if (const std::size_t at = head.find(linkage); at != std::string::npos)
      head.replace(at, linkage.size(), ".visible");
  }
  if (head.find(".visible") == std::string::npos)
    head += ".visible ";
  return out.substr(0, line_start) + head + ".entry" + out.substr(f.keyword + 5);
}

std::optional<sim::Dim3> maxntid(std::string_view text, std::string_view name) {
  const std::string s = strip_comments(text);
  for (const std::size_t at : word_offsets(s, ".entry")) {
    std::size_t i = skip_space(s, at + 6);
    if (s.compare(i, name.size(), name) != 0 ||
        (i + name.size() < s.size() && ident_char(s[i + name.size()])))
      continue;
    const std::size_t body = s.find('{', i);
    const std::size_t directive = s.find(".maxntid", i);
    if (directive == std::string::npos || directive > body)
      return std::nullopt;
    sim::Dim3 d{1, 1, 1};
    i = directive + 8;
    for (std::size_t k = 0; k < 3; ++k) {
      i = skip_space(s, i);
      std::size_t used = 0;
      try {
        d[k] = static_cast<std::uint32_t>(std::stoul(s.substr(i, 12), &used));
      } catch (const std::exception&) {
        return std::nullopt;
      }
      i = skip_space(s, i + used);
      if (i >= s.size() || s[i] != ',')
        break;
      ++i;
    }
    return d;
  }
  return std::nullopt;
}

} // namespace ptxgen::lint::detail
