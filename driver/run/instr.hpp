#pragma once
// One cp.async instruction built, checked against the PTX rules for a target and version,
// and put in a minimal kernel that defines every register it reads: the core of `ptxgen
// instr` (driver/cli/cmd_instr.cpp) and of the Python module's `ptxgen.instr`.

#include "emitter/ptx/module.hpp"
#include "emitter/support/diagnostic.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace ptxgen::driver {

struct CpAsyncInstrRequest {
  std::string opcode; ///< "cp.async.cg.shared.global", with any qualifiers
  std::uint32_t chunk_bytes = 16;
  bool src_size = false;                     ///< a src-size operand (zero-fill)
  std::optional<std::uint32_t> src_size_imm; ///< its immediate; none: a .u32 register
  bool ignore_src = false;
  bool pred = false;
  bool cache_policy = false;
  ptx::Target target;
  std::optional<ptx::PtxVersion> version; ///< none: the lowest the target and instruction allow
};

struct CpAsyncInstr {
  ptx::Module module;           ///< the minimal kernel around the instruction
  ptx::Instruction instruction; ///< as built
  ptx::PtxVersion version;      ///< the one asked for, or the lowest that allows it
  Diagnostics diagnostics;      ///< the PTX rules' findings, placed in the opcode text
};

/// The instruction the request asks for, checked; nullopt with `parse_errors` set when the
/// opcode text does not parse (each placed in the file "opcode").
std::optional<CpAsyncInstr> build_cp_async_instr(const CpAsyncInstrRequest& r,
                                                 Diagnostics& parse_errors);

/// cp.async's group instructions: cp.async.commit_group, cp.async.wait_group N and
/// cp.async.wait_all, which move no bytes and so take none of a copy's options.
bool is_cp_async_group_opcode(const std::string& opcode);

struct CpAsyncGroupRequest {
  std::string opcode;                 ///< one is_cp_async_group_opcode() takes
  std::optional<std::int64_t> groups; ///< wait_group's N (required there, refused elsewhere)
  ptx::Target target;
  std::optional<ptx::PtxVersion> version; ///< none: the lowest the target allows
};

/// The group instruction checked for the target, or what is wrong with the request (N
/// missing on wait_group, or given on another), in words for the caller's usage error.
std::variant<CpAsyncInstr, std::string> build_cp_async_group_instr(const CpAsyncGroupRequest& r);

/// ".version X.Y\n.target sm_XX\n<the instruction>\n": what `ptxgen instr` prints.
std::string instr_text(const CpAsyncInstr& built, ptx::Target target);

} // namespace ptxgen::driver
