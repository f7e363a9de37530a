#pragma once
// One instruction of the sm_90 bulk-copy family (emitter/ptx/bulk.hpp) built in a minimal
// kernel whose registers hold every operand it reads, and checked against the PTX rules
// for a target and version: the core of `ptxgen instr` for that family
// (driver/cli/cmd_instr_bulk.cpp) and of the Python module's `ptxgen.instr`.

#include "emitter/ptx/bulk_opcode.hpp"
#include "emitter/ptx/module.hpp"
#include "emitter/support/diagnostic.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ptxgen::driver {

/// The target a bulk-family instruction is built for unless the caller names one (the
/// cp.async one is `emitted_target`): the family starts at sm_90.
inline constexpr ptx::Target bulk_default_target{90, false};

/// Whether the opcode names the bulk-copy family (by its mnemonic), so that a front end
/// can tell which options apply before anything else parses it.
bool is_bulk_opcode(const std::string& opcode);

/// A byte count operand: an immediate (negative ones too, so that the rules refuse them
/// with their own diagnostic), or a .u32 register.
struct BulkCount {
  std::optional<std::int64_t> immediate; ///< none: a register
};

/// A count as the command line spells it: an integer, or `reg`; nullopt for anything else.
std::optional<BulkCount> parse_bulk_count(const std::string& text);

struct BulkInstrRequest {
  std::string opcode; ///< e.g. "cp.async.bulk.global.shared::cta.bulk_group", any order
  ptx::Target target = bulk_default_target;
  std::optional<ptx::PtxVersion> version; ///< none: the lowest the target and instruction allow
  std::optional<BulkCount> size;          ///< a bulk copy's or prefetch's byte count
  std::optional<BulkCount> tx_count;      ///< the expect_tx forms' transaction bytes
  std::int64_t groups = 0;                ///< wait_group's N
  std::optional<std::size_t> coords;      ///< how many tensor coordinates (none: the rank)
  bool sink = false;                      ///< arrive.expect_tx discards its state (`_`)
  bool pred = false;                      ///< guard it with a predicate
  bool cache_policy = false;              ///< the 64-bit policy operand .L2::cache_hint reads
};

/// The options a request gives, apart from their values.
struct BulkOptionsGiven {
  bool size = false, tx_count = false, groups = false, coords = false, sink = false;
};
/// `groups` counts as given when it is not 0, its default.
BulkOptionsGiven options_given(const BulkInstrRequest& r);

/// An option the form does not take (`missing` false), or one it requires that is absent.
struct BulkOptionProblem {
  enum class Option { size, tx_count, groups, coords, sink } option;
  bool missing = false;
};

/// How a front end spells the options in a problem's message: `--tx-count`, `tx_count`.
enum class OptionSpelling { command_line, python };

/// The first option of `given` that `form` does not take or lacks, or nullopt.
std::optional<BulkOptionProblem> bulk_option_problem(const ptx::BulkKind& form,
                                                     const BulkOptionsGiven& given);

/// What is wrong and how to fix it, the options named as `spelling` names them.
std::string bulk_option_message(const BulkOptionProblem& p, OptionSpelling spelling);

/// The form the opcode names, its operands empty; nullopt with `parse_errors` set (each
/// in the file "opcode", its caret on the qualifier at fault) when it does not parse.
std::optional<ptx::BulkKind> parse_bulk_form(const std::string& opcode, Diagnostics& parse_errors);

struct BulkInstr {
  ptx::Module module;           ///< the minimal kernel around the instruction
  ptx::Instruction instruction; ///< as built
  ptx::PtxVersion version;      ///< the one asked for, or the lowest that allows it
  Diagnostics diagnostics;      ///< the PTX rules' findings (in the file "instr")
};

/// `form` (parse_bulk_form's, with no option problem) with its operands filled as `r` asks,
/// checked for `r`'s target and version. Options the form does not read are ignored.
BulkInstr build_bulk_instr(ptx::BulkKind form, const BulkInstrRequest& r);

/// ".version X.Y\n.target sm_XX\n<the instruction>\n": what `ptxgen instr` prints.
std::string instr_text(const BulkInstr& built, ptx::Target target);

} // namespace ptxgen::driver
