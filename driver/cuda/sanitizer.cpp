#include "driver/cuda/sanitizer.hpp"

#include "emitter/support/enum_names.hpp"

#include <algorithm>
#include <charconv>

#include <unistd.h>

namespace ptxgen::driver::cuda {

namespace {

/// Every line of a compute-sanitizer log starts with this.
constexpr std::string_view line_prefix = "=========";
constexpr std::string_view error_summary = "ERROR SUMMARY: ";
constexpr std::string_view racecheck_summary = "RACECHECK SUMMARY: ";

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

/// The number at the start of `s` ("1,599" is not one: summaries print plain numbers).
std::optional<std::size_t> leading_number(std::string_view s) {
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc{} || end == s.data())
    return std::nullopt;
  return n;
}

/// The number just before `word` in `s` ("(64 errors, 1984 warnings)", "errors" -> 64).
std::optional<std::size_t> number_before(std::string_view s, std::string_view word) {
  const std::size_t at = s.find(word); // `word` starts with the space after the number
  if (at == std::string_view::npos)
    return std::nullopt;
  std::size_t begin = at;
  while (begin > 0 && s[begin - 1] >= '0' && s[begin - 1] <= '9')
    --begin;
  return leading_number(s.substr(begin, at - begin));
}

SanitizerFinding::Kind classify(std::string_view headline) {
  using K = SanitizerFinding::Kind;
  const bool warning = starts_with(headline, "Warning:");
  if (headline.find("Race reported") != std::string_view::npos ||
      headline.find("hazard detected") != std::string_view::npos)
    return warning ? K::race_warning : K::race;
  if (starts_with(headline, "Invalid __") || starts_with(headline, "Misaligned") ||
      starts_with(headline, "Out-of-range") || starts_with(headline, "Invalid global") ||
      starts_with(headline, "Invalid shared") || starts_with(headline, "Invalid local"))
    return K::memory_access;
  if (starts_with(headline, "Barrier error"))
    return headline.find("Missing wait") != std::string_view::npos ? K::barrier_missing_wait
                                                                   : K::barrier;
  if (starts_with(headline, "Uninitialized"))
    return K::uninitialized;
  if (starts_with(headline, "Program hit"))
    return K::api_error;
  return K::other;
}

/// Lines the tool prints that are not findings: the banner, its own status.
bool is_banner(std::string_view headline) {
  return headline == "COMPUTE-SANITIZER" || headline == "Target application returned an error";
}

/// Fills location / thread from an indented line of the current finding.
void read_detail(SanitizerFinding& f, std::string_view detail) {
  if (starts_with(detail, "at ") && f.location.empty()) {
    f.location = std::string(detail.substr(3));
  } else if (starts_with(detail, "by thread ") && f.thread.empty()) {
    f.thread = std::string(detail.substr(10));
  } else if (f.location.empty() && !starts_with(detail, "Host Frame")) {
    // racecheck's hazard lines: "Write Thread (33,0,0) at cross_thread_readback+0x1a0".
    const std::size_t at = detail.find(" at ");
    if (at != std::string_view::npos)
      f.location = std::string(detail.substr(at + 4));
  }
}

/// Reads a summary line into `r`; false when `text` is not one.
bool read_summary(SanitizerReport& r, std::string_view text) {
  if (starts_with(text, racecheck_summary)) {
    // "1 hazard displayed (1 error, 0 warnings)"
    r.errors = number_before(text, " error").value_or(0);
    r.warnings = number_before(text, " warning").value_or(0);
    r.checked = true;
    return true;
  }
  if (starts_with(text, error_summary)) {
    // "133 errors", but not "33 errors were not printed. Use --print-limit ..."
    const std::string_view rest = text.substr(error_summary.size());
    const auto n = leading_number(rest);
    const std::size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
    const std::string_view unit = rest.substr(digits);
    if (n && (unit == " errors" || unit == " error")) {
      // racecheck prints its own summary; an ERROR SUMMARY there counts nothing more.
      if (r.tool != SanitizerTool::racecheck)
        r.errors = *n;
      r.checked = true;
    }
    return true;
  }
  return false;
}

} // namespace

namespace {
constexpr auto sanitizer_tool_names =
    enum_names<SanitizerTool::initcheck>("memcheck", "racecheck", "synccheck", "initcheck");
} // namespace

std::string_view name(SanitizerTool tool) {
  return name_of(sanitizer_tool_names, tool);
}

std::optional<SanitizerTool> parse_sanitizer_tool(std::string_view text) {
  return parse_name(sanitizer_tool_names, text);
}

std::string_view name(SanitizerFinding::Kind kind) {
  using K = SanitizerFinding::Kind;
  static constexpr auto names =
      enum_names<K::other>("memory_access", "race", "race_warning", "barrier",
                           "barrier_missing_wait", "uninitialized", "api_error", "other");
  return name_of(names, kind);
}

std::string SanitizerReport::summary() const {
  std::string s(name(tool));
  if (!checked)
    return s + ": not checked (" + (problem.empty() ? "no summary in its log" : problem) + ")";
  if (errors == 0 && warnings == 0)
    return s + ": clean";
  s += ": " + std::to_string(errors) + (errors == 1 ? " error" : " errors");
  if (tool == SanitizerTool::racecheck)
    s += ", " + std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
  if (!findings.empty()) {
    s += ": " + findings.front().message;
    if (!findings.front().location.empty())
      s += " (at " + findings.front().location + ")";
  }
  return s;
}

SanitizerReport parse_sanitizer_log(SanitizerTool tool, std::string_view log) {
  SanitizerReport r;
  r.tool = tool;
  bool in_finding = false;
  while (!log.empty()) {
    const std::size_t eol = log.find('\n');
    std::string_view line = log.substr(0, eol);
    log.remove_prefix(eol == std::string_view::npos ? log.size() : eol + 1);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (!starts_with(line, line_prefix))
      continue; // not the tool's (a program's own output, were it mixed in)
    line.remove_prefix(line_prefix.size());
    if (line.find_first_not_of(' ') == std::string_view::npos) {
      in_finding = false; // the blank separator after each finding
      continue;
    }
    if (line.size() >= 2 && line[0] == ' ' && line[1] == ' ') {
      if (in_finding)
        read_detail(r.findings.back(), line.substr(line.find_first_not_of(' ')));
      continue;
    }
    const std::string_view text = line.substr(line.find_first_not_of(' '));
    if (read_summary(r, text) || is_banner(text)) {
      in_finding = false;
      continue;
    }
    SanitizerFinding f;
    f.kind = classify(text);
    f.message = std::string(text);
    if (text.find("Race reported") != std::string_view::npos)
      read_detail(f, text); // analysis mode names the first access in the headline
    r.findings.push_back(std::move(f));
    in_finding = true;
  }
  if (!r.checked) {
    r.problem = r.findings.empty()
                    ? "its log has no summary line"
                    : "its log ends without a summary line after: " + r.findings.back().message;
  }
  return r;
}

std::optional<std::filesystem::path>
locate_compute_sanitizer(const std::filesystem::path& ptxas, std::string_view path_env,
                         const std::vector<std::filesystem::path>& fallback_dirs) {
  constexpr std::string_view program = "compute-sanitizer";
  std::vector<std::filesystem::path> dirs;
  if (!ptxas.empty() && ptxas.has_parent_path())
    dirs.push_back(ptxas.parent_path());
  while (!path_env.empty()) {
    const std::size_t colon = path_env.find(':');
    const std::string_view dir = path_env.substr(0, colon);
    if (!dir.empty())
      dirs.emplace_back(dir);
    path_env.remove_prefix(colon == std::string_view::npos ? path_env.size() : colon + 1);
  }
  dirs.insert(dirs.end(), fallback_dirs.begin(), fallback_dirs.end());
  for (const auto& dir : dirs) {
    const auto candidate = dir / program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

std::vector<std::filesystem::path> default_sanitizer_dirs() {
  return {"/usr/local/cuda/bin"};
}

} // namespace ptxgen::driver::cuda
