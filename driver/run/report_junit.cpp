// The conformance report as JUnit XML (`ptxgen run --report FILE.xml`): one testcase a spec, a
// failure for every verdict but pass and unsupported (skipped), compute-sanitizer's
// summary as the case's output.
#include "driver/run/conformance.hpp"
#include "driver/support/escape.hpp"

#include <sstream>

namespace ptxgen::driver {

std::string to_junit(const ConformanceReport& r) {
  std::ostringstream x;
  const std::size_t skipped = r.count(CaseResult::Status::unsupported);
  const std::size_t failures = r.cases.size() - r.count(CaseResult::Status::pass) - skipped;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuite name=\"ptxgen conformance"
    << (sharded(r.shard) ? " (shard " + str(r.shard) + ")" : std::string()) << "\" tests=\""
    << r.cases.size() << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\" time=\""
    << r.wall_seconds << "\">\n"
    << "  <properties><property name=\"backend\" value=\"" << xml_escape(r.backend_description)
    << "\"/></properties>\n";
  for (const auto& c : r.cases) {
    double t = (c.emit_ms + c.ptxas_ms + c.reference_ms + c.proof_ms + c.load_ms + c.launch_ms +
                c.compare_ms) /
               1000.0;
    x << "  <testcase classname=\"conformance\" name=\"" << xml_escape(c.spec) << "\" time=\"" << t
      << "\"";
    // compute-sanitizer's report, passing or not.
    const std::string sanitizer_out =
        c.sanitizer ? "    <system-out>" + xml_escape(c.sanitizer->summary()) + "</system-out>\n"
                    : std::string();
    if (c.status == CaseResult::Status::pass && !sanitizer_out.empty()) {
      x << ">\n" << sanitizer_out << "  </testcase>\n";
    } else if (c.status == CaseResult::Status::pass) {
      x << "/>\n";
    } else if (c.status == CaseResult::Status::unsupported) {
      // Not a failure of the kernel: the simulator could not give a verdict.
      x << ">\n    <skipped message=\"" << xml_escape(c.detail.substr(0, c.detail.find('\n')))
        << "\">" << xml_escape(c.detail) << "</skipped>\n  </testcase>\n";
    } else {
      x << ">\n    <failure type=\"" << name(c.status) << "\" message=\""
        << xml_escape(c.detail.substr(0, c.detail.find('\n'))) << "\">" << xml_escape(c.detail)
        << "</failure>\n"
        << sanitizer_out << "  </testcase>\n";
    }
  }
  x << "</testsuite>\n";
  return x.str();
}

} // namespace ptxgen::driver
