// The doctest runner for all unit test files; each file registers its own cases.
// A run whose filters match no test case fails: CTest registers one test per
// source file (`--source-file=*/<stem>.cpp`), and a renamed or emptied file
// must not turn its test into a silent pass.
//
// The cases that need ptxas form the test suite "ptxas"; CTest runs them as
// their own test (unit.<stem>.ptxas) with `--needs-ptxas`, which exits 77
// (CTest's skip) where no ptxas is found, so a machine without one skips them
// visibly instead of passing them having assembled nothing.
#define DOCTEST_CONFIG_IMPLEMENT
#include "driver/ptxas/ptxas.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

#include <doctest/doctest.h>

namespace {

/// How many test cases passed the filters in the last run (doctest's own count).
unsigned cases_run = 0;

/// A listener that records doctest's run statistics and reports nothing itself.
struct CaseCounter : doctest::IReporter {
  explicit CaseCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    cases_run = stats.numTestCasesPassingFilters;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

} // namespace

REGISTER_LISTENER("ptxgen_case_counter", 1, CaseCounter);

int main(int argc, char** argv) {
  std::vector<char*> args;
  bool needs_ptxas = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--needs-ptxas") == 0)
      needs_ptxas = true;
    else
      args.push_back(argv[i]);
  }
  if (needs_ptxas) {
    if (auto ptxas = ptxgen::driver::locate_ptxas(""); !ptxas) {
      std::fprintf(stderr, "ptxgen_unit: no ptxas here (%s): skipped\n", ptxas.error().c_str());
      return 77;
    }
  }
  doctest::Context context(static_cast<int>(args.size()), args.data());
  const int status = context.run();
  // --help, --list-test-cases, --count and the like run no case by design.
  if (context.shouldExit() || status != 0)
    return status;
  if (cases_run == 0) {
    std::fprintf(stderr, "ptxgen_unit: no test case matched the filters: nothing was tested\n");
    return 1;
  }
  return status;
}
