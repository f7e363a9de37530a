#pragma once
// A compiler-style diagnostic: where, what, and the source line for a caret.
//
// Stages never print. They return diagnostics; the command line prints them
// once, as `file:line:col: error: message`, the source line and a caret.
// Positions inside a string (an opcode, a view pattern, an expression) are
// produced with line 1 and a column relative to that string; the spec loader
// rebases them onto the file (see rebase()).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen {

/// What a diagnostic is about, independent of its wording (diagnostic_ids.def).
enum class DiagId : std::uint16_t {
#define PTXGEN_DIAG(id) id,
#include "emitter/support/diagnostic_ids.def"
#undef PTXGEN_DIAG
};

/// How many DiagId values there are (they are numbered 0..diag_id_count-1).
inline constexpr std::size_t diag_id_count = 0
#define PTXGEN_DIAG(id) +1
#include "emitter/support/diagnostic_ids.def"
#undef PTXGEN_DIAG
    ;

/// The printed name of an ID: DiagId::ptx_cg_size -> "ptx_cg_size".
std::string_view name(DiagId id);

/// The inverse of name(): "ptx_cg_size" -> DiagId::ptx_cg_size; false for an unknown name.
bool parse_diag_id(std::string_view text, DiagId& out);

enum class Severity {
  error,   ///< the input is rejected
  warning, ///< accepted, but probably not what was meant
  note,    ///< more detail about the preceding error or warning
};

/// Every diagnostic is built with its ID: there is no default constructor, so a site
/// that forgets the ID does not compile.
struct Diagnostic {
  Diagnostic(DiagId id_, std::string message_, Severity severity_ = Severity::error)
      : severity(severity_), id(id_), message(std::move(message_)) {}

  Severity severity = Severity::error;
  DiagId id; ///< what it is about; printed as `[name]`
  std::string message;
  std::string file;         ///< empty when the input did not come from a file
  std::uint32_t line = 0;   ///< 1-based; 0 when there is no position
  std::uint32_t column = 0; ///< 1-based, in bytes
  std::uint32_t length = 1; ///< width of the caret underline, at least 1
  std::string source_line;  ///< the text of `line`, for the caret display
};

/// A diagnostic at byte `offset` (0-based) of a one-line `text`, `length` bytes wide.
Diagnostic error_at(DiagId id, std::string_view text, std::size_t offset, std::size_t length,
                    std::string message);

/// Moves a diagnostic positioned inside a string onto the file that holds the
/// string: the string's first byte is at (`line`, `column`) of `file`.
Diagnostic rebase(Diagnostic d, std::string file, std::uint32_t line, std::uint32_t column,
                  std::string source_line);

/// `file:line:col: error: message [id]`, then the source line and a caret line.
/// "error", "warning" or "note", as the text format prints it.
std::string_view severity_name(Severity s);
std::string format(const Diagnostic& d);

/// Diagnostics collected by a stage. Order is the order of discovery. The one type every
/// stage and the C++ API return: a range of Diagnostic (`for (const Diagnostic& d : ds)`).
class Diagnostics {
public:
  using const_iterator = std::vector<Diagnostic>::const_iterator;
  Diagnostics() = default;
  explicit Diagnostics(std::vector<Diagnostic> items) : items_(std::move(items)) {}

  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void error(DiagId id, std::string message) { items_.emplace_back(id, std::move(message)); }
  /// True when some diagnostic has this ID.
  bool has(DiagId id) const;
  void append(const Diagnostics& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
  }
  bool has_errors() const;
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  const Diagnostic& operator[](std::size_t i) const { return items_[i]; }
  const Diagnostic& front() const { return items_.front(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  std::string format_all() const;

private:
  std::vector<Diagnostic> items_;
};

} // namespace ptxgen
