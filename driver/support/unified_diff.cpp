#include "driver/support/unified_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ptxgen::driver {

static std::vector<std::string_view> diff_lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    auto nl = s.find('\n');
    if (nl == std::string_view::npos) {
      out.push_back(s);
      break;
    }
    out.push_back(s.substr(0, nl));
    s.remove_prefix(nl + 1);
  }
  return out;
}

std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_name,
                         const std::string& b_name, int context) {
  if (a == b)
    return {};
  const auto x = diff_lines(a);
  const auto y = diff_lines(b);
  const std::size_t n = x.size(), m = y.size();
  // Longest common subsequence table (goldens are small: a few hundred lines).
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = x[i] == y[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Line {
    char tag; // ' ', '-', '+'
    std::string_view text;
    std::size_t ai, bi; // 0-based positions in a and b before this line
  };
  std::vector<Line> script;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] == y[j]) {
      script.push_back({' ', x[i], i, j});
      ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      script.push_back({'+', y[j], i, j});
      ++j;
    } else {
      script.push_back({'-', x[i], i, j});
      ++i;
    }
  }
  std::string out = "--- " + a_name + "\n+++ " + b_name + "\n";
  const auto ctx = static_cast<std::size_t>(std::max(context, 0));
  std::size_t k = 0;
  while (k < script.size()) {
    if (script[k].tag == ' ') {
      ++k;
      continue;
    }
    std::size_t begin = k >= ctx ? k - ctx : 0;
    std::size_t end = k;
    // Extend the hunk while changes are within 2*context lines of each other.
    std::size_t last_change = k;
    while (end < script.size()) {
      if (script[end].tag != ' ')
        last_change = end;
      else if (end - last_change > 2 * ctx)
        break;
      ++end;
    }
    end = std::min(script.size(), last_change + ctx + 1);
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t t = begin; t < end; ++t) {
      if (script[t].tag != '+')
        ++a_count;
      if (script[t].tag != '-')
        ++b_count;
    }
    out += "@@ -" + std::to_string(script[begin].ai + (a_count ? 1 : 0)) + "," +
           std::to_string(a_count) + " +" + std::to_string(script[begin].bi + (b_count ? 1 : 0)) +
           "," + std::to_string(b_count) + " @@\n";
    for (std::size_t t = begin; t < end; ++t) {
      out += script[t].tag;
      out += script[t].text;
      out += '\n';
    }
    k = end;
  }
  return out;
}

} // namespace ptxgen::driver
