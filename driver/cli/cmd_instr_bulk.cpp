// `ptxgen instr` for the sm_90 bulk-copy family: the command line's words for what
// driver/run/instr_bulk.cpp builds (the form, its options, the instruction in a minimal
// kernel checked for the target), and the exit status.

#include "driver/cli/cmd_instr_bulk.hpp"

#include "driver/cli/command.hpp"
#include "driver/run/instr_bulk.hpp"

#include <iostream>

namespace ptxgen::cli {

int run_bulk_instr(const BulkCommandLine& c, driver::DiagnosticsPrinter& printer) {
  Diagnostics parse_errors;
  std::optional<ptx::BulkKind> form = driver::parse_bulk_form(c.opcode, parse_errors);
  if (!form) {
    printer.print(parse_errors);
    printer.finish();
    return exit_input;
  }
  const driver::BulkOptionsGiven given{c.size.has_value(), c.tx_count.has_value(), c.groups != 0,
                                       c.coords.has_value(), c.sink};
  if (auto problem = driver::bulk_option_problem(*form, given)) {
    std::cerr << "ptxgen instr: "
              << driver::bulk_option_message(*problem, driver::OptionSpelling::command_line)
              << "\n";
    return exit_usage;
  }
  driver::BulkInstrRequest r;
  if (c.size)
    r.size = driver::parse_bulk_count(*c.size);
  if (c.tx_count)
    r.tx_count = driver::parse_bulk_count(*c.tx_count);
  if (c.size.has_value() != r.size.has_value() ||
      c.tx_count.has_value() != r.tx_count.has_value()) {
    std::cerr << "ptxgen instr: --size and --tx-count expect an integer or `reg`\n";
    return exit_usage;
  }
  r.opcode = c.opcode;
  r.target = c.target;
  r.version = c.version;
  r.groups = c.groups;
  r.coords = c.coords;
  r.sink = c.sink;
  r.pred = c.pred;
  r.cache_policy = c.cache_policy;
  const driver::BulkInstr b = driver::build_bulk_instr(std::move(*form), r);

  const bool valid = !b.diagnostics.has_errors();
  if (valid) {
    std::cout << driver::instr_text(b, c.target);
  } else {
    printer.print(b.diagnostics);
    printer.finish();
  }
  if (!c.ptxas)
    return valid ? exit_ok : exit_input;
  return compare_with_ptxas(*c.ptxas, b.module, c.target, b.version, valid);
}

} // namespace ptxgen::cli
