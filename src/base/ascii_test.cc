#include "base/ascii.h"

#include <gtest/gtest.h>

namespace vigil {
namespace {

static_assert(to_lower('Q') == 'q' && to_upper('q') == 'Q');
static_assert(iequals("Chunked", "cHUNKED") && istarts_with("Bearer x", "bearer "));

TEST(Ascii, OnlyLettersChangeCase) {
  EXPECT_EQ(lowercase("HTTPS://Host:80/A-Z_@[`{"), "https://host:80/a-z_@[`{");
  EXPECT_EQ(uppercase("tls-hello none_az@[`{"), "TLS-HELLO NONE_AZ@[`{");
  EXPECT_EQ(lowercase(""), "");
}

TEST(Ascii, LeavesBytesOfUtf8Alone) {
  // "É" is C3 89: lowering it byte by byte would break the sequence, not make "é".
  EXPECT_EQ(lowercase("\xc3\x89T\xc3\xa9"), "\xc3\x89t\xc3\xa9");
  EXPECT_EQ(uppercase("\xc3\xa9t"), "\xc3\xa9T");
  EXPECT_FALSE(iequals("\xc3\x89", "\xc3\xa9"));
}

TEST(Ascii, IgnoringCase) {
  EXPECT_TRUE(iequals("Transfer-Encoding", "transfer-encoding"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("chunked", "chunke"));
  EXPECT_FALSE(iequals("chunked", "chunkes"));
  EXPECT_TRUE(istarts_with("HTTP://x", "http://"));
  EXPECT_TRUE(istarts_with("http", ""));
  EXPECT_FALSE(istarts_with("http", "https"));
  EXPECT_FALSE(istarts_with("hxtp://", "http://"));
}

}  // namespace
}  // namespace vigil
