// driver/support/escape.hpp: the escaping every JSON and XML report goes through. The
// expected texts are written from the formats: RFC 8259 section 7 (a quotation mark, a
// reverse solidus and the control characters must be escaped; \n, \t, \r have short forms,
// the others \u00XX) and XML 1.0 sections 2.2 and 2.4 (& and < escaped, > and " too for
// attribute values; no control character but tab, newline and carriage return is allowed).
#include "driver/support/escape.hpp"

#include <string>

#include <doctest/doctest.h>

namespace unit_support_escape {

using ptxgen::driver::json_escape;
using ptxgen::driver::xml_escape;

TEST_CASE("json_escape: quotes, backslashes and control characters") {
  CHECK(json_escape("plain text") == "plain text");
  CHECK(json_escape("say \"hi\"") == "say \\\"hi\\\"");
  CHECK(json_escape("a\\b") == "a\\\\b");
  CHECK(json_escape("1\n2\t3\r4") == "1\\n2\\t3\\r4");
  CHECK(json_escape(std::string("\x01\x1f", 2)) == "\\u0001\\u001f");
  CHECK(json_escape(std::string(1, '\0')) == "\\u0000");
  // Bytes from 0x20 up, UTF-8 included, pass as they are.
  CHECK(json_escape("\x7f \xc3\xa9 <&>") == "\x7f \xc3\xa9 <&>");
}

TEST_CASE("xml_escape: the four markup characters, and control characters dropped") {
  CHECK(xml_escape("plain text") == "plain text");
  CHECK(xml_escape("a < b && c > \"d\"") == "a &lt; b &amp;&amp; c &gt; &quot;d&quot;");
  CHECK(xml_escape("tab\there\nnext") == "tab\there\nnext");
  CHECK(xml_escape(std::string("x\x01y\x1fz\x0bw", 7)) == "xyzw");
  CHECK(xml_escape("'\\ \xc3\xa9") == "'\\ \xc3\xa9");
}

} // namespace unit_support_escape
