#include "base/utf8.h"

#include <gtest/gtest.h>

namespace vigil {
namespace {

TEST(Utf8, WellFormedText) {
  EXPECT_TRUE(is_utf8(""));
  EXPECT_TRUE(is_utf8("/readyz?verbose"));
  EXPECT_TRUE(is_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é € 😀
  EXPECT_TRUE(is_utf8("\xf4\x8f\xbf\xbf"));                           // U+10FFFF
}

TEST(Utf8, FirstBadByteIsNamed) {
  EXPECT_EQ(utf8_invalid_at("/ready\xb9z"), 6u);       // a lone continuation byte
  EXPECT_EQ(utf8_invalid_at("caf\xe9"), 3u);           // Latin-1, cut short
  EXPECT_EQ(utf8_invalid_at("ab\xc0\xaf"), 2u);        // overlong '/'
  EXPECT_EQ(utf8_invalid_at("\xe0\x80\xaf"), 0u);      // overlong, three bytes
  EXPECT_EQ(utf8_invalid_at("x\xed\xa0\x80"), 1u);     // a surrogate
  EXPECT_EQ(utf8_invalid_at("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(utf8_invalid_at("\xe2\x82x"), 0u);         // a bad third byte
  EXPECT_EQ(utf8_invalid_at("ok\xff"), 2u);
}

}  // namespace
}  // namespace vigil
