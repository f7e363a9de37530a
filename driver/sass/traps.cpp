#include "driver/sass/traps.hpp"

#include "emitter/support/enum_names.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace ptxgen::driver::sass {

namespace {

/// ldgsts_unwritten_uniform: the uniform registers an LDGSTS addresses memory
/// with (inside brackets: `[R9+UR0]`, `desc[UR1]`) must be written somewhere in
/// the function; ptxas 13.0 sometimes names UR0/UR1 that nothing sets.
void scan_ldgsts_unwritten_uniform(const Function& f, std::vector<TrapMatch>& out) {
  std::vector<bool> written;
  for (const auto& in : f.instructions)
    for (unsigned n : in.uniform_written) {
      if (n >= written.size())
        written.resize(n + 1, false);
      written[n] = true;
    }
  for (const auto& in : f.instructions) {
    if (in.mnemonic != "LDGSTS")
      continue;
    std::vector<unsigned> unwritten;
    for (const auto& operand : in.operands) {
      if (!is_memory_operand(operand))
        continue;
      for (unsigned n : uniform_registers(operand))
        if ((n >= written.size() || !written[n]) &&
            std::find(unwritten.begin(), unwritten.end(), n) == unwritten.end())
          unwritten.push_back(n);
    }
    if (unwritten.empty())
      continue;
    std::string regs;
    for (unsigned n : unwritten)
      regs += (regs.empty() ? "UR" : ", UR") + std::to_string(n);
    out.push_back(TrapMatch{TrapId::ldgsts_unwritten_uniform, f.name, in.line, in.offset, in.text,
                            regs + (unwritten.size() == 1 ? " is" : " are") +
                                " never written in the function"});
  }
}

constexpr std::array<std::string_view, 3> ldgsts_references = {
    "docs/ptx-rules.md, device facts: ptxas 13.0.88, sm_90, H200: "
    "CUDA_ERROR_ILLEGAL_INSTRUCTION at the LDGSTS",
    "IST-DASLab/marlin issue 44 (ptxas 13.1, sm_90: desc[UR1] never materialised)",
    "triton-lang/triton PR 11848 (fractional L2 policies disabled until ptxas 13.4.59)",
};

const std::array<Signature, 1> table = {{
    {TrapId::ldgsts_unwritten_uniform,
     "an LDGSTS (cp.async) addresses shared memory or its global memory descriptor "
     "through a uniform register that no instruction of the function writes; seen "
     "from ptxas 13.0 for .L2::cache_hint copies whose shared address is a symbol "
     "plus an offset (nvcc's `mov.u32 %r, smem; add.s32`), sm_90; the device "
     "stops with an illegal instruction",
     ldgsts_references, scan_ldgsts_unwritten_uniform},
}};

} // namespace

std::string_view name(TrapId id) {
  static constexpr auto names =
      enum_names<TrapId::ldgsts_unwritten_uniform>("ldgsts_unwritten_uniform");
  return name_of(names, id);
}

std::span<const Signature> signatures() {
  return table;
}

const Signature& signature(TrapId id) {
  return row_with(table, &Signature::id, id, "TrapId without a signature");
}

std::vector<TrapMatch> find_traps(const Listing& listing) {
  std::vector<TrapMatch> out;
  for (const auto& s : table)
    for (const auto& f : listing.functions)
      s.scan(f, out);
  return out;
}

std::string describe(const TrapMatch& m) {
  std::string where = m.function;
  if (m.offset) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " /*%04llx*/", static_cast<unsigned long long>(*m.offset));
    where += buf;
  }
  return "ptxas miscompile " + std::string(name(m.id)) + " at SASS line " + std::to_string(m.line) +
         " (" + where + " " + m.instruction + "): " + m.why;
}

} // namespace ptxgen::driver::sass
