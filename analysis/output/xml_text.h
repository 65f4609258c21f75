// Text fit for XML 1.0 and HTML, in an attribute value or an element: the markup characters
// & < > " ' escaped, tab, newline and return as character references (so an attribute keeps
// them), and the other control characters, which XML 1.0 cannot hold at all, replaced by '?'.
// One escaper for every XML and HTML writer (JUnit files, SVG charts, report pages), so that a
// scenario name or label with such characters cannot make one of them unreadable.
#pragma once

#include <string>
#include <string_view>

namespace gpumux {

std::string xml_text(std::string_view text);

}  // namespace gpumux
