#include "driver/ptxas/ptxas_output.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>

namespace ptxgen::driver {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

/// Splits `text` into lines without their terminators (a final empty line is dropped).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos)
      break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

/// Which kind of message a ptxas line carries.
enum class Kind {
  error,   ///< "error"
  fatal,   ///< "fatal": ptxas gave up
  warning, ///< "warning"
  info,    ///< "info": progress and -v output
};

/// Parses "<kind> <spaces>: <text>" at the start of `s`.
std::optional<std::pair<Kind, std::string_view>> parse_kind(std::string_view s) {
  static constexpr std::pair<std::string_view, Kind> kinds[] = {{"error", Kind::error},
                                                                {"fatal", Kind::fatal},
                                                                {"warning", Kind::warning},
                                                                {"info", Kind::info}};
  for (auto [word, kind] : kinds) {
    if (!starts_with(s, word))
      continue;
    std::string_view rest = s.substr(word.size());
    while (!rest.empty() && rest.front() == ' ')
      rest.remove_prefix(1);
    if (rest.empty() || rest.front() != ':')
      return std::nullopt;
    return std::pair{kind, trim(rest.substr(1))};
  }
  return std::nullopt;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    return std::nullopt;
  return v;
}

/// The text after "ptxas info    : ", or nullopt for any other line.
std::optional<std::string_view> info_text(std::string_view line) {
  if (!starts_with(line, "ptxas "))
    return std::nullopt;
  auto k = parse_kind(line.substr(6));
  if (!k || k->first != Kind::info)
    return std::nullopt;
  return k->second;
}

/// Splits "a, b, c" into trimmed items.
std::vector<std::string_view> split_items(std::string_view s) {
  std::vector<std::string_view> items;
  while (!s.empty()) {
    auto comma = s.find(',');
    items.push_back(trim(s.substr(0, comma)));
    if (comma == std::string_view::npos)
      break;
    s.remove_prefix(comma + 1);
  }
  return items;
}

/// "<N> <word...>" -> (N, rest); used for "8 registers", "4096 bytes smem".
std::optional<std::pair<std::int64_t, std::string_view>> number_then_words(std::string_view s) {
  auto sp = s.find(' ');
  if (sp == std::string_view::npos)
    return std::nullopt;
  auto n = parse_int(s.substr(0, sp));
  if (!n)
    return std::nullopt;
  return std::pair{*n, trim(s.substr(sp + 1))};
}

/// "Function properties" line values.
struct FrameInfo {
  std::int64_t stack = 0;
  std::int64_t spill_stores = 0;
  std::int64_t spill_loads = 0;
};

} // namespace

std::vector<PtxasMessage> parse_ptxas_messages(std::string_view output, std::string_view ptx) {
  std::vector<std::string_view> ptx_lines = split_lines(ptx);
  std::vector<PtxasMessage> messages;
  for (std::string_view line : split_lines(output)) {
    if (!starts_with(line, "ptxas "))
      continue;
    std::string_view rest = line.substr(6);
    std::uint32_t line_no = 0;
    auto kind = parse_kind(rest);
    if (!kind) {
      // "<file>, line <N>; <kind> : <text>". The file name may contain
      // anything, so try each ", line " from the left until the rest fits.
      for (std::size_t at = rest.find(", line "); at != std::string_view::npos;
           at = rest.find(", line ", at + 1)) {
        std::string_view after = rest.substr(at + 7);
        auto semi = after.find("; ");
        if (semi == std::string_view::npos)
          break;
        auto n = parse_int(after.substr(0, semi));
        auto k = parse_kind(after.substr(semi + 2));
        if (n && *n >= 0 && *n <= 0xffffffffLL && k) {
          line_no = static_cast<std::uint32_t>(*n);
          kind = k;
          break;
        }
      }
    }
    if (!kind || kind->first == Kind::info)
      continue;
    PtxasMessage m;
    m.is_error = kind->first != Kind::warning;
    m.line = line_no;
    m.text = std::string(kind->second);
    if (line_no >= 1 && line_no <= ptx_lines.size())
      m.ptx_line = std::string(ptx_lines[line_no - 1]);
    messages.push_back(std::move(m));
  }
  return messages;
}

bool is_abort_summary(const PtxasMessage& m) {
  return m.line == 0 && m.text == "Ptx assembly aborted due to errors";
}

namespace {

/// One ptxas message as a diagnostic (see ptxas_diagnostics()).
Diagnostic message_diagnostic(const PtxasMessage& m, const PtxOrigin& origin,
                              const std::string& suffix) {
  Diagnostic d(m.is_error ? DiagId::run_ptxas_rejected : DiagId::run_ptxas_warning, m.text,
               m.is_error ? Severity::error : Severity::warning);
  d.file = origin.file;
  const std::string_view text = trim(m.ptx_line);
  if (m.line == 0) {
    d.message += suffix;
  } else if (origin.emitted) {
    d.message += " (line " + std::to_string(m.line) + " of the PTX emitted from it: `" +
                 std::string(text) + "`; " + suffix.substr(2);
  } else {
    d.message += suffix;
    d.line = m.line;
    d.source_line = m.ptx_line;
    // The caret under the instruction, past the line's indentation.
    const std::size_t indent = text.empty() ? 0 : m.ptx_line.find(text.front());
    d.column = static_cast<std::uint32_t>(indent + 1);
    d.length = static_cast<std::uint32_t>(std::max<std::size_t>(text.size(), 1));
  }
  return d;
}

} // namespace

Diagnostics ptxas_diagnostics(const AssembleResult& r, const PtxOrigin& origin, ptx::Target arch) {
  Diagnostics out;
  switch (r.status) {
  case AssembleResult::Status::ok:
  case AssembleResult::Status::rejected:
    break;
  case AssembleResult::Status::failed_to_start:
  case AssembleResult::Status::crashed:
  case AssembleResult::Status::timed_out:
  case AssembleResult::Status::io_error:
    return out;
  }
  const std::string suffix = " (ptxas -arch=" + arch.str() + ")";
  const bool explained = std::any_of(r.messages.begin(), r.messages.end(),
                                     [](const PtxasMessage& m) { return !is_abort_summary(m); });
  for (const PtxasMessage& m : r.messages)
    if (!explained || !is_abort_summary(m))
      out.add(message_diagnostic(m, origin, suffix));
  if (!r.ok() && !out.has_errors()) {
    // Rejected without a message ptxgen recognises: the description holds its output.
    Diagnostic d(DiagId::run_ptxas_rejected, r.describe() + suffix);
    d.file = origin.file;
    out.add(std::move(d));
  }
  return out;
}

std::vector<ResourceUsage> parse_resource_usage(std::string_view output) {
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::vector<ResourceUsage> usage;
  std::map<std::string, FrameInfo, std::less<>> frames;
  std::size_t current = none;          // entry the next "Used" line belongs to
  std::optional<std::string> props_of; // function whose properties line comes next

  for (std::string_view line : split_lines(output)) {
    if (auto info = info_text(line)) {
      props_of.reset();
      std::string_view t = *info;
      static constexpr std::string_view compiling = "Compiling entry function '";
      static constexpr std::string_view properties = "Function properties for ";
      if (starts_with(t, compiling)) {
        std::string_view name = t.substr(compiling.size());
        name = name.substr(0, name.find('\''));
        usage.push_back(ResourceUsage{std::string(name)});
        current = usage.size() - 1;
      } else if (starts_with(t, properties)) {
        props_of = std::string(trim(t.substr(properties.size())));
      } else if (starts_with(t, "Used ") && current != none) {
        ResourceUsage& u = usage[current];
        for (std::string_view item : split_items(t)) {
          if (starts_with(item, "Used ") || starts_with(item, "used ")) {
            auto nw = number_then_words(item.substr(5));
            if (nw && nw->second == "registers")
              u.registers = static_cast<int>(nw->first);
          } else if (auto nw = number_then_words(item)) {
            if (nw->second == "bytes smem")
              u.shared_bytes = nw->first;
            else if (starts_with(nw->second, "bytes cmem["))
              u.constant_bytes += nw->first;
          }
        }
        current = none;
      }
      continue;
    }
    if (props_of && !starts_with(line, "ptxas")) {
      FrameInfo f;
      for (std::string_view item : split_items(trim(line))) {
        auto nw = number_then_words(item);
        if (!nw)
          continue;
        if (nw->second == "bytes stack frame")
          f.stack = nw->first;
        else if (nw->second == "bytes spill stores")
          f.spill_stores = nw->first;
        else if (nw->second == "bytes spill loads")
          f.spill_loads = nw->first;
      }
      frames[*props_of] = f;
    }
    props_of.reset();
  }
  for (ResourceUsage& u : usage) {
    if (auto it = frames.find(u.entry); it != frames.end()) {
      u.stack_bytes = it->second.stack;
      u.spill_stores = it->second.spill_stores;
      u.spill_loads = it->second.spill_loads;
    }
  }
  return usage;
}

} // namespace ptxgen::driver
