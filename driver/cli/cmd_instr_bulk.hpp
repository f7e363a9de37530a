#pragma once
// `ptxgen instr` for the sm_90 bulk-copy family (emitter/ptx/bulk.hpp): the options as the
// command line gives them, and the run that prints what driver/run/instr_bulk.hpp builds.

#include "driver/cli/command.hpp"
#include "driver/run/instr.hpp"
#include "driver/run/instr_bulk.hpp"
#include "driver/support/diagnostic_format.hpp"
#include "emitter/ptx/module.hpp"

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

namespace ptxgen::cli {

/// One bulk-family instruction as the command line asks for it.
struct BulkCommandLine {
  std::string opcode;
  ptx::Target target;
  std::optional<ptx::PtxVersion> version;
  std::optional<std::string> size;     ///< `--size`: bytes, or `reg` for a .u32 register
  std::optional<std::string> tx_count; ///< `--tx-count`: bytes, or `reg`
  std::int64_t groups = 0;             ///< `--groups`: wait_group's N
  std::optional<std::size_t> coords;   ///< `--coords`: how many coordinates (default: the rank)
  bool sink = false;                   ///< `--sink`: arrive.expect_tx discards its state
  bool pred = false;
  bool cache_policy = false;
  std::optional<std::string> ptxas;
};

/// Builds, checks and prints the instruction (or the diagnostics); with `ptxas`, asks ptxas
/// too. The exit status of `ptxgen instr`.
int run_bulk_instr(const BulkCommandLine& c, driver::DiagnosticsPrinter& printer);

/// Assembles `module` with ptxas and says whether it agrees with ptxgen's verdict `valid`
/// (instr.cpp; shared by both families).
int compare_with_ptxas(const std::string& ptxas, const ptx::Module& module, ptx::Target target,
                       ptx::PtxVersion version, bool valid);

/// The end both families share: the built instruction `b` (driver::CpAsyncInstr or
/// BulkInstr) printed when valid, else its diagnostics; with `ptxas`, compare_with_ptxas().
/// The exit status of `ptxgen instr`.
template <class Built>
int report_instr(const Built& b, ptx::Target target, const std::optional<std::string>& ptxas,
                 driver::DiagnosticsPrinter& printer) {
  const bool valid = !b.diagnostics.has_errors();
  if (valid) {
    std::cout << driver::instr_text(b, target);
  } else {
    printer.print(b.diagnostics);
    printer.finish();
  }
  if (!ptxas)
    return valid ? exit_ok : exit_input;
  return compare_with_ptxas(*ptxas, b.module, target, b.version, valid);
}

} // namespace ptxgen::cli
