#pragma once
// Escaping for the text formats ptxgen writes: the JSON reports (run, fuzz, bench,
// --diagnostics-format), JUnit XML and `show`'s SVG. One definition for all of them.
#include <string>
#include <string_view>

namespace ptxgen::driver {

/// `s` as the inside of a JSON string: quotes, backslashes and control characters escaped.
std::string json_escape(std::string_view s);
/// `s` as XML text or an attribute value: & < > " escaped; control characters that XML 1.0
/// forbids dropped (tab and newline kept).
std::string xml_escape(std::string_view s);

} // namespace ptxgen::driver
