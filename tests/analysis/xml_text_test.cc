// xml_text: the one escaper of the JUnit, SVG and HTML writers.
#include "analysis/output/xml_text.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumux {
namespace {

TEST(XmlText, EscapesTheMarkupCharacters) {
  EXPECT_EQ(xml_text("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(xml_text("&amp;"), "&amp;amp;");  // already escaped text is escaped again
}

TEST(XmlText, KeepsTabNewlineAndReturnAsReferences) {
  // Unescaped, an attribute value would fold them into spaces.
  EXPECT_EQ(xml_text("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
}

TEST(XmlText, ReplacesControlCharactersXmlCannotHold) {
  const std::string bell_and_nul = std::string("x\x07y") + '\0' + "z\x1f";
  EXPECT_EQ(xml_text(bell_and_nul), "x?y?z?");
}

TEST(XmlText, PassesOtherTextThroughUnchanged) {
  EXPECT_EQ(xml_text(""), "");
  EXPECT_EQ(xml_text("plain text, 3g.20gb"), "plain text, 3g.20gb");
  EXPECT_EQ(xml_text("caf\xc3\xa9 \xe2\x86\x92"), "caf\xc3\xa9 \xe2\x86\x92");  // UTF-8 bytes kept
  EXPECT_EQ(xml_text("\x7f"), "\x7f");  // DEL is allowed in XML 1.0
}

}  // namespace
}  // namespace gpumux
