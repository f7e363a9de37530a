#include "driver/sass/listing.hpp"

#include <algorithm>
#include <cctype>

namespace ptxgen::driver::sass {

namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

/// Splits at commas outside brackets and braces.
std::vector<std::string> split_operands(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (c == '[' || c == '{' || c == '(')
      ++depth;
    else if ((c == ']' || c == '}' || c == ')') && depth > 0)
      --depth;
    else if (c == ',' && depth == 0) {
      auto item = trim(s.substr(start, i - start));
      if (!item.empty())
        out.emplace_back(item);
      start = i + 1;
    }
  }
  return out;
}

/// How many registers a destination of this opcode's width covers.
unsigned destination_width(const std::vector<std::string>& modifiers) {
  unsigned width = 1;
  for (const auto& m : modifiers) {
    if (m == "128")
      width = std::max(width, 4u);
    else if (m == "64" || m == "WIDE")
      width = std::max(width, 2u);
  }
  return width;
}

/// n when `operand` is exactly "URn" (a bare uniform register, not URZ).
std::optional<unsigned> bare_uniform(std::string_view operand) {
  auto regs = uniform_registers(operand);
  if (regs.size() != 1 || operand != "UR" + std::to_string(regs.front()))
    return std::nullopt;
  return regs.front();
}

/// The address of an instruction line, `/*0180*/`, and the rest after it.
std::optional<std::uint64_t> address(std::string_view& line) {
  if (line.size() < 5 || line.substr(0, 2) != "/*")
    return std::nullopt;
  auto close = line.find("*/");
  if (close == std::string_view::npos || close == 2)
    return std::nullopt;
  std::uint64_t value = 0;
  for (char c : line.substr(2, close - 2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      return std::nullopt; // an encoding comment ("/* 0x000f... */") or other text
    value = value * 16 + static_cast<std::uint64_t>(
                             std::isdigit(static_cast<unsigned char>(c))
                                 ? c - '0'
                                 : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  }
  line = trim(line.substr(close + 2));
  return value;
}

/// The function a header line opens: cuobjdump's "Function : NAME", nvdisasm's ".text.NAME:".
std::optional<std::string> function_header(std::string_view line) {
  constexpr std::string_view cuobjdump = "Function : ";
  if (line.substr(0, cuobjdump.size()) == cuobjdump)
    return std::string(trim(line.substr(cuobjdump.size())));
  constexpr std::string_view nvdisasm = ".text.";
  if (line.substr(0, nvdisasm.size()) == nvdisasm && line.back() == ':')
    return std::string(line.substr(nvdisasm.size(), line.size() - nvdisasm.size() - 1));
  return std::nullopt;
}

/// A line that closes the current function: cuobjdump's "....." trailer, its
/// next "code for" block, or nvdisasm's next section.
bool ends_function(std::string_view line) {
  return line.substr(0, 5) == "....." || line.substr(0, 8) == "code for" ||
         line.substr(0, 8) == ".section" || line.substr(0, 7) == "//-----";
}

} // namespace

std::vector<unsigned> uniform_registers(std::string_view operand) {
  std::vector<unsigned> out;
  for (std::size_t i = 0; i + 2 < operand.size(); ++i) {
    if (operand[i] != 'U' || operand[i + 1] != 'R' || (i > 0 && is_word_char(operand[i - 1])))
      continue;
    std::size_t j = i + 2;
    unsigned n = 0;
    while (j < operand.size() && std::isdigit(static_cast<unsigned char>(operand[j])) && n < 1000)
      n = n * 10 + static_cast<unsigned>(operand[j++] - '0');
    if (j == i + 2 || (j < operand.size() && is_word_char(operand[j])))
      continue; // URZ, UR4X, UPT ...
    out.push_back(n);
  }
  return out;
}

bool is_memory_operand(std::string_view operand) {
  return operand.find('[') != std::string_view::npos;
}

std::optional<Instruction> parse_instruction(std::string_view text) {
  text = trim(text);
  // nvdisasm brackets dual-issued pairs of old architectures with { }.
  if (!text.empty() && text.front() == '{')
    text = trim(text.substr(1));
  if (!text.empty() && text.back() == '}')
    text = trim(text.substr(0, text.size() - 1));
  if (text.empty() || text.back() != ';')
    return std::nullopt;
  text = trim(text.substr(0, text.size() - 1));
  Instruction in;
  in.text = std::string(text);
  std::string_view rest = text;
  if (!rest.empty() && rest.front() == '@') {
    auto space = rest.find_first_of(" \t");
    if (space == std::string_view::npos)
      return std::nullopt;
    in.guard = std::string(rest.substr(0, space));
    rest = trim(rest.substr(space));
  }
  auto space = rest.find_first_of(" \t");
  std::string_view opcode = rest.substr(0, space);
  if (opcode.empty() || !std::isupper(static_cast<unsigned char>(opcode.front())))
    return std::nullopt; // a directive (.byte ...), a label or other text
  rest = space == std::string_view::npos ? std::string_view{} : trim(rest.substr(space));
  auto dot = opcode.find('.');
  in.mnemonic = std::string(opcode.substr(0, dot));
  while (dot != std::string_view::npos) {
    auto next = opcode.find('.', dot + 1);
    in.modifiers.emplace_back(opcode.substr(dot + 1, next - dot - 1));
    dot = next;
  }
  in.operands = split_operands(rest);
  for (std::size_t k = 0; k < in.operands.size(); ++k) {
    if (k == 0) {
      if (auto n = bare_uniform(in.operands[k])) {
        for (unsigned w = 0; w < destination_width(in.modifiers); ++w)
          in.uniform_written.push_back(*n + w);
        continue;
      }
    }
    for (unsigned n : uniform_registers(in.operands[k]))
      in.uniform_read.push_back(n);
  }
  return in;
}

Listing parse_sass(std::string_view text) {
  Listing listing;
  Function* current = nullptr;
  std::size_t number = 0;
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view line = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (line.empty())
      continue;
    if (auto name = function_header(line)) {
      listing.functions.push_back(Function{*name, number, {}});
      current = &listing.functions.back();
      continue;
    }
    if (ends_function(line)) {
      current = nullptr;
      continue;
    }
    if (!current)
      continue;
    auto offset = address(line);
    if (!offset)
      continue;
    // cuobjdump appends the encoding as a comment: "LDC R1, c[0x0][0x28] ; /* 0x... */".
    auto comment = line.find("/*");
    if (comment != std::string_view::npos)
      line = trim(line.substr(0, comment));
    auto in = parse_instruction(line);
    if (!in)
      continue;
    in->line = number;
    in->offset = offset;
    current->instructions.push_back(std::move(*in));
  }
  return listing;
}

} // namespace ptxgen::driver::sass
