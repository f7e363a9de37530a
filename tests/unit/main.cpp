// The doctest runner for all unit test files; each file registers its own cases.
// A run whose filters match no test case fails: CTest registers one test per
// source file (`--source-file=*/<stem>.cpp`), and a renamed or emptied file
// must not turn its test into a silent pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdio>

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
  doctest::Context context(argc, argv);
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
