#include "emitter/ptx/printer.hpp"

#include "emitter/ptx/validator.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <variant>

namespace ptxgen::ptx {

namespace {

/// Prints an instruction from its declaration: root, `.qualifiers`, then the operands
/// separated by commas, then `;`. A label definition prints `name:` instead.
class Printer {
public:
  void opcode(Mnemonic m) { out_ += spelling(m); }
  void qualifier(std::string_view q) {
    out_ += '.';
    out_ += q;
  }
  void def(Register r, Slot) { next() += to_string(r); }
  void defs(std::span<const Register> rs, Slot) { list(rs); }
  void use(const Operand& o, Slot) { next() += to_string(o); }
  void uses(std::span<const Operand> os, Slot) { list(os); }
  /// A vector operand `{a, ...}`, braced even with one element (im2col's offsets).
  void vector(std::span<const Operand> os, Slot) {
    std::string& out = next();
    out += "{";
    for (std::size_t k = 0; k < os.size(); ++k)
      out += (k ? ", " : "") + to_string(os[k]);
    out += "}";
  }
  void reg(Register r, Slot) { next() += to_string(r); }
  void negated_reg(Register r, Slot) { next() += "!" + to_string(r); }
  void address(const Address& a, AddressSlot) { next() += to_string(a); }
  void tensor(const std::variant<Register, Symbol>& map, std::span<const Operand> coords, Slot,
              Slot) {
    std::string& out = next();
    out += "[" + to_string(std::visit([](const auto& m) -> Operand { return m; }, map)) + ", {";
    for (std::size_t k = 0; k < coords.size(); ++k)
      out += (k ? ", " : "") + to_string(coords[k]);
    out += "}]";
  }
  void immediate(std::int64_t n) { next() += std::to_string(n); }
  void float_immediate(float f) { next() += float_literal(f); }
  void label(const std::string& name) { next() += name; }
  void label_definition(const std::string& name) {
    out_ += name;
    label_definition_ = true;
  }
  void sink(Slot) { next() += "_"; }
  void missing(std::string_view placeholder) { next() += placeholder; }
  void feature(Feature) {}

  /// The text, with `;` or, for a label definition, `:`.
  std::string take() { return out_ + (label_definition_ ? ":" : ";"); }
  bool is_label_definition() const { return label_definition_; }

private:
  /// One operand, or a vector operand `{a, b, ...}`.
  template <class T>
  void list(std::span<const T> items) {
    std::string& out = next();
    if (items.size() == 1) {
      out += to_string(items.front());
      return;
    }
    out += "{";
    for (std::size_t k = 0; k < items.size(); ++k)
      out += (k ? ", " : "") + to_string(items[k]);
    out += "}";
  }

  std::string& next() {
    out_ += operands_++ ? ", " : " ";
    return out_;
  }

  std::string out_;
  std::size_t operands_ = 0;
  bool label_definition_ = false;
};

} // namespace

namespace {

/// The instruction's text and whether it defines a label (then printed unindented).
std::string print(const Instruction& i, bool& label_definition) {
  std::string out;
  if (i.guard)
    out += std::string("@") + (i.guard->negated ? "!" : "") + to_string(i.guard->predicate) + " ";
  Printer p;
  describe(i.body, p);
  out += p.take();
  label_definition = p.is_label_definition();
  if (!i.comment.empty())
    out += " // " + i.comment;
  return out;
}

} // namespace

std::string print(const Instruction& i) {
  bool label_definition = false;
  return print(i, label_definition);
}

std::string print(const Module& m) {
  std::string out;
  for (const auto& c : m.header_comments)
    out += "//" + (c.empty() ? std::string() : " " + c) + "\n";
  out += ".version " + (m.version ? *m.version : required_version(m)).str() + "\n";
  out += ".target " + m.target.str() + "\n";
  out += ".address_size " + std::to_string(m.address_size) + "\n";
  for (const Entry& e : m.entries) {
    // ptxas takes `.extern .shared` only at module scope: just before its entry.
    out += "\n";
    for (const SharedArray& s : e.shared)
      if (s.kind == SharedKind::dynamic)
        out += ".extern .shared .align " + std::to_string(s.align) + " .b8 " + s.name + "[];\n";
    out += ".visible .entry " + e.name + "(";
    for (std::size_t k = 0; k < e.params.size(); ++k) {
      const Param& p = e.params[k];
      out += std::string(k ? ",\n" : "\n") + "\t.param ";
      if (p.array_bytes != 0)
        out += ".align " + std::to_string(p.array_align) + " .b8 " + p.name + "[" +
               std::to_string(p.array_bytes) + "]";
      else
        out += "." + std::string(name(p.type)) + " " + p.name;
    }
    out += e.params.empty() ? ")\n" : "\n)\n";
    if (e.reqntid) {
      const auto& [x, y, z] = *e.reqntid;
      out += ".reqntid " + std::to_string(x);
      if (y != 1 || z != 1)
        out += ", " + std::to_string(y) + ", " + std::to_string(z);
      out += "\n";
    }
    if (e.minnctapersm)
      out += ".minnctapersm " + std::to_string(*e.minnctapersm) + "\n";
    if (e.reqnctapercluster) {
      const auto& [x, y, z] = *e.reqnctapercluster;
      out += ".reqnctapercluster " + std::to_string(x) + ", " + std::to_string(y) + ", " +
             std::to_string(z) + "\n";
    }
    out += "{\n";
    for (std::size_t c = 0; c < reg_class_count; ++c) {
      auto cls = static_cast<RegClass>(c);
      std::uint32_t n = e.registers.count(cls);
      if (n == 0)
        continue;
      // `%r<N>` declares %r0..%r(N-1); registers are numbered from 1, so declare n+1.
      out += "\t.reg ." + std::string(name(declared_type(cls))) + " " + std::string(prefix(cls)) +
             "<" + std::to_string(n + 1) + ">;\n";
    }
    for (const SharedArray& s : e.shared) {
      switch (s.kind) {
      case SharedKind::fixed:
        out += "\t.shared .align " + std::to_string(s.align) + " .b8 " + s.name + "[" +
               std::to_string(s.bytes) + "];\n";
        break;
      case SharedKind::dynamic: // printed before the entry
        break;
      }
    }
    out += "\n";
    for (const Instruction& i : e.body) {
      bool label_definition = false;
      const std::string text = print(i, label_definition);
      out += (label_definition ? "" : "\t") + text + "\n";
    }
    out += "}\n";
  }
  return out;
}

} // namespace ptxgen::ptx
