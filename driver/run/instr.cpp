#include "driver/run/instr.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/opcode_parser.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/ptx/validator.hpp"

#include <algorithm>

namespace ptxgen::driver {

namespace {

using namespace ptxgen::ptx;

/// Points a validator finding at the opcode qualifier it concerns, where the user wrote it;
/// a finding about an operand (or about a qualifier the opcode lacks) has no position.
Diagnostic place(const std::string& opcode_text, const OpcodeLayout& layout, const Finding& f) {
  Diagnostic out = f.diagnostic;
  const OpcodeLayout::Span& span = layout.at(f.part);
  if (f.part == OpcodePart::none || span.length == 0) {
    out.file = "instr";
    return out;
  }
  out.file = "opcode";
  out.source_line = opcode_text;
  out.line = 1;
  out.column = static_cast<std::uint32_t>(span.offset + 1);
  out.length = static_cast<std::uint32_t>(span.length);
  return out;
}

/// The instruction and a minimal kernel around it that defines every register it reads.
CpAsyncInstr build_kernel(const CpAsyncOpcode& op, const CpAsyncInstrRequest& o) {
  const std::uint32_t chunk_bytes = o.chunk_bytes;
  CpAsyncInstr b;
  Entry e;
  e.name = "ptxgen_instr";
  e.params.push_back({"src", ScalarType::u64});
  e.shared.push_back({"smem", 128, 256});
  RegisterFile& rf = e.registers;
  Register dst = rf.make(RegClass::b32);
  Register src = rf.make(RegClass::b64);
  e.body.push_back({std::nullopt, Mov{ScalarType::u32, dst, Symbol{"smem"}}, ""});
  e.body.push_back(
      {std::nullopt, Ld{StateSpace::param, ScalarType::u64, {src}, Address{Symbol{"src"}, 0}}, ""});
  e.body.push_back({std::nullopt, Cvta{StateSpace::global, ScalarType::u64, src, src}, ""});

  CpAsync cp;
  cp.opcode = op;
  cp.dst = Address{dst, 0};
  cp.src = Address{src, 0};
  cp.cp_size = chunk_bytes;
  if (o.src_size) {
    if (o.src_size_imm) {
      cp.zero_fill = SrcSize{*o.src_size_imm};
    } else {
      Register r = rf.make(RegClass::b32);
      e.body.push_back({std::nullopt, Mov{ScalarType::u32, r, Immediate{chunk_bytes}}, ""});
      cp.zero_fill = SrcSize{r};
    }
  }
  // setp cannot read %tid.x directly (ptxas allows special registers only in mov and cvt).
  std::optional<Register> tid;
  auto thread_index = [&]() {
    if (!tid) {
      tid = rf.make(RegClass::b32);
      e.body.push_back({std::nullopt, Mov{ScalarType::u32, *tid, SpecialRegister::tid_x}, ""});
    }
    return *tid;
  };
  std::optional<Guard> guard;
  if (o.pred) {
    Register p = rf.make(RegClass::pred);
    e.body.push_back(
        {std::nullopt, Setp{CompareOp::lt, ScalarType::u32, p, thread_index(), Immediate{64}}, ""});
    guard = Guard{p, false};
  }
  if (o.ignore_src) {
    Register p = rf.make(RegClass::pred);
    e.body.push_back(
        {std::nullopt, Setp{CompareOp::ge, ScalarType::u32, p, thread_index(), Immediate{32}}, ""});
    cp.zero_fill = IgnoreSrc{p, false};
  }
  if (o.cache_policy) {
    Register r = rf.make(RegClass::b64);
    // A plain 64-bit value keeps the kernel free of createpolicy's own version gate.
    e.body.push_back({std::nullopt, Mov{ScalarType::b64, r, Immediate{0}}, ""});
    cp.cache_policy = r;
  }
  b.instruction = Instruction{guard, cp, ""};
  e.body.push_back(b.instruction);
  e.body.push_back({std::nullopt, CpAsyncCommitGroup{}, ""});
  e.body.push_back({std::nullopt, CpAsyncWaitAll{}, ""});
  e.body.push_back({std::nullopt, Ret{}, ""});
  b.module.header_comments.push_back("ptxgen instr: one instruction in a minimal kernel");
  b.module.target = o.target;
  b.module.entries.push_back(std::move(e));
  return b;
}

/// The PTX rules' findings on `b` for the target and version, each placed in the opcode.
Diagnostics check_built(const CpAsyncInstr& b, const CpAsyncInstrRequest& o,
                        const OpcodeLayout& layout, const CpAsyncOpcode& parsed, Target target,
                        PtxVersion version) {
  Diagnostics diags = validate_target_version(target, version);
  for (const Finding& f : check(b.instruction, target, version))
    diags.add(place(o.opcode, layout, f));
  if (o.cache_policy == false && parsed.cache_hint) {
    // The validator already said it; add how to fix it from the command line.
    Diagnostic n(DiagId::ptx_cache_hint_without_policy,
                 "pass --cache-policy to add the policy operand (ptxgen always prints it: "
                 "with the hint, ptxas reads the last operand as the policy)",
                 Severity::note);
    diags.add(n);
  }
  return diags;
}

} // namespace

std::optional<CpAsyncInstr> build_cp_async_instr(const CpAsyncInstrRequest& r,
                                                 Diagnostics& parse_errors) {
  OpcodeLayout layout;
  Result<CpAsyncOpcode> parsed = parse_opcode(r.opcode, &layout);
  if (!parsed) {
    for (auto d : parsed.diagnostics.items()) {
      d.file = "opcode";
      parse_errors.add(d);
    }
    return std::nullopt;
  }
  CpAsyncInstr b = build_kernel(*parsed, r);
  if (r.version) {
    b.version = *r.version;
  } else {
    b.version = min_version_for_target(r.target);
    for (Feature f : features_used(b.instruction))
      b.version = std::max(b.version, info(f).min_version);
  }
  b.module.version = b.version;
  b.diagnostics = check_built(b, r, layout, *parsed, r.target, b.version);
  return b;
}

bool is_cp_async_group_opcode(const std::string& opcode) {
  return opcode == "cp.async.commit_group" || opcode == "cp.async.wait_group" ||
         opcode == "cp.async.wait_all";
}

std::variant<CpAsyncInstr, std::string> build_cp_async_group_instr(const CpAsyncGroupRequest& r) {
  const bool wait_group = r.opcode == "cp.async.wait_group";
  if (wait_group && !r.groups)
    return std::string("cp.async.wait_group takes N, the groups that may stay pending "
                       "(groups; 0 waits for all)");
  if (!wait_group && r.groups)
    return r.opcode + " takes no N (groups is for cp.async.wait_group)";
  CpAsyncInstr b;
  if (wait_group)
    b.instruction = Instruction{std::nullopt, CpAsyncWaitGroup{*r.groups}, ""};
  else if (r.opcode == "cp.async.commit_group")
    b.instruction = Instruction{std::nullopt, CpAsyncCommitGroup{}, ""};
  else
    b.instruction = Instruction{std::nullopt, CpAsyncWaitAll{}, ""};
  b.version = r.version.value_or(min_version_for_target(r.target));
  if (!r.version)
    for (Feature f : features_used(b.instruction))
      b.version = std::max(b.version, info(f).min_version);
  Entry e;
  e.name = "ptxgen_instr";
  e.body.push_back(b.instruction);
  e.body.push_back({std::nullopt, Ret{}, ""});
  b.module.header_comments.push_back("ptxgen instr: one instruction in a minimal kernel");
  b.module.target = r.target;
  b.module.version = b.version;
  b.module.entries.push_back(std::move(e));
  b.diagnostics = validate_target_version(r.target, b.version);
  for (const Finding& f : check(b.instruction, r.target, b.version)) {
    Diagnostic d = f.diagnostic;
    d.file = "instr";
    b.diagnostics.add(std::move(d));
  }
  return b;
}

std::string instr_text(const CpAsyncInstr& built, Target target) {
  return ".version " + built.version.str() + "\n.target " + target.str() + "\n" +
         print(built.instruction) + "\n";
}

} // namespace ptxgen::driver
