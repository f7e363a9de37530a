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
  const auto count = [](const std::optional<std::string>& text) {
    return text ? driver::parse_bulk_count(*text) : std::nullopt;
  };
  const driver::BulkInstrRequest r{.opcode = c.opcode,
                                   .target = c.target,
                                   .version = c.version,
                                   .size = count(c.size),
                                   .tx_count = count(c.tx_count),
                                   .groups = c.groups,
                                   .coords = c.coords,
                                   .sink = c.sink,
                                   .pred = c.pred,
                                   .cache_policy = c.cache_policy};
  if (c.size.has_value() != r.size.has_value() ||
      c.tx_count.has_value() != r.tx_count.has_value()) {
    std::cerr << "ptxgen instr: --size and --tx-count expect an integer or `reg`\n";
    return exit_usage;
  }
  const driver::BulkInstr b = driver::build_bulk_instr(std::move(*form), r);
  return report_instr(b, c.target, c.ptxas, printer);
}

} // namespace ptxgen::cli
