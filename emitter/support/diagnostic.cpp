#include "emitter/support/diagnostic.hpp"

#include "emitter/support/enum_names.hpp"

#include <algorithm>

namespace ptxgen {

namespace {

constexpr std::string_view diag_names[] = {
#define PTXGEN_DIAG(id) #id,
#include "emitter/support/diagnostic_ids.def"
#undef PTXGEN_DIAG
};

} // namespace

std::string_view name(DiagId id) {
  return diag_names[static_cast<std::size_t>(id)];
}

bool parse_diag_id(std::string_view text, DiagId& out) {
  for (std::size_t k = 0; k < std::size(diag_names); ++k)
    if (diag_names[k] == text) {
      out = static_cast<DiagId>(k);
      return true;
    }
  return false;
}

Diagnostic error_at(DiagId id, std::string_view text, std::size_t offset, std::size_t length,
                    std::string message) {
  Diagnostic d(id, std::move(message));
  d.line = 1;
  d.column = static_cast<std::uint32_t>(std::min(offset, text.size()) + 1);
  d.length = static_cast<std::uint32_t>(std::max<std::size_t>(length, 1));
  d.source_line = std::string(text);
  return d;
}

Diagnostic rebase(Diagnostic d, std::string file, std::uint32_t line, std::uint32_t column,
                  std::string source_line) {
  d.file = std::move(file);
  if (d.line == 0) {
    d.line = line;
    d.column = column;
  } else {
    d.line = line + d.line - 1;
    d.column = column + d.column - 1;
  }
  d.source_line = std::move(source_line);
  return d;
}

std::string_view severity_name(Severity s) {
  static constexpr auto names = enum_names<Severity::note>("error", "warning", "note");
  return name_of(names, s);
}

std::string format(const Diagnostic& d) {
  std::string out;
  if (!d.file.empty()) {
    out += d.file;
    out += ':';
  }
  if (d.line != 0) {
    out += std::to_string(d.line) + ':' + std::to_string(d.column) + ':';
  }
  if (!out.empty())
    out += ' ';
  out += severity_name(d.severity);
  out += ": ";
  out += d.message;
  out += " [";
  out += name(d.id);
  out += ']';
  out += '\n';
  if (d.line != 0 && !d.source_line.empty()) {
    out += "  " + d.source_line + '\n';
    std::string caret(2 + (d.column > 0 ? d.column - 1 : 0), ' ');
    // Keep tabs so the caret lines up under tab-indented source.
    for (std::size_t i = 0; i + 2 < caret.size() && i < d.source_line.size(); ++i)
      if (d.source_line[i] == '\t')
        caret[i + 2] = '\t';
    caret += '^';
    if (d.length > 1)
      caret += std::string(d.length - 1, '~');
    out += caret + '\n';
  }
  return out;
}

bool Diagnostics::has(DiagId id) const {
  return std::any_of(items_.begin(), items_.end(),
                     [id](const Diagnostic& d) { return d.id == id; });
}

bool Diagnostics::has_errors() const {
  return std::any_of(items_.begin(), items_.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::error; });
}

std::string Diagnostics::format_all() const {
  std::string out;
  for (const auto& d : items_)
    out += format(d);
  return out;
}

} // namespace ptxgen
