#include "config/haproxy/tokenizer.h"

#include <gtest/gtest.h>

namespace vigil::config::haproxy {
namespace {

using Words = std::vector<std::string>;

// The words of a one-line config, and no diagnostic.
Words words_of(std::string_view text) {
  std::vector<Diagnostic> out;
  const auto lines = tokenize(text, "haproxy.cfg", out);
  EXPECT_TRUE(out.empty()) << text << ": " << (out.empty() ? "" : out[0].to_string());
  if (lines.size() != 1) {
    ADD_FAILURE() << text << ": " << lines.size() << " lines";
    return {};
  }
  return lines[0].words;
}

TEST(HaproxyTokenizer, SplitsOnBlanksAndSkipsCommentsAndBlankLines) {
  std::vector<Diagnostic> out;
  const auto lines = tokenize(
      "# comment\n\nglobal\n  \t maxconn   4000  # trailing\r\n    server a 10.0.0.1:80 check\n",
      "haproxy.cfg", out);
  EXPECT_TRUE(out.empty());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].number, 3);
  EXPECT_EQ(lines[0].words, Words({"global"}));
  EXPECT_EQ(lines[1].number, 4);
  EXPECT_EQ(lines[1].words, Words({"maxconn", "4000"}));
  EXPECT_EQ(lines[2].words, Words({"server", "a", "10.0.0.1:80", "check"}));
  EXPECT_EQ(lines[2].env, std::vector<bool>({false, false, false, false}));
}

TEST(HaproxyTokenizer, HashStartsACommentInsideAWord) {
  EXPECT_EQ(words_of("bind :80#x y"), Words({"bind", ":80"}));
}

TEST(HaproxyTokenizer, Quotes) {
  EXPECT_EQ(words_of("a 'b c' \"d e\""), Words({"a", "b c", "d e"}));
  EXPECT_EQ(words_of("a'b c'd"), Words({"ab cd"}));
  EXPECT_EQ(words_of("a '' \"\" b"), Words({"a", "", "", "b"}));
  EXPECT_EQ(words_of("a '#not' \"# not\""), Words({"a", "#not", "# not"}));
  // Single quotes keep backslashes; double quotes process them.
  EXPECT_EQ(words_of("a '\\n\\x41' \"\\x41\\\"\""), Words({"a", "\\n\\x41", "A\""}));
  EXPECT_EQ(words_of("a \"it's\" 'say \"hi\"'"), Words({"a", "it's", "say \"hi\""}));
}

TEST(HaproxyTokenizer, Escapes) {
  EXPECT_EQ(words_of("log-format a\\ b\\ %ci"), Words({"log-format", "a b %ci"}));
  EXPECT_EQ(words_of("x \\#y \\\\z"), Words({"x", "#y", "\\z"}));
  EXPECT_EQ(words_of("x a\\r\\nb\\tc"), Words({"x", "a\r\nb\tc"}));
  EXPECT_EQ(words_of("x \\x41\\x6a"), Words({"x", "Aj"}));
  // Other backslashes stay, as regexes need them.
  EXPECT_EQ(words_of("acl h hdr_reg(host) ^a\\.b\\d$"),
            Words({"acl", "h", "hdr_reg(host)", "^a\\.b\\d$"}));
  EXPECT_EQ(words_of("x a\\"), Words({"x", "a\\"}));
  // The old way of adding a header to a check.
  EXPECT_EQ(words_of("option httpchk GET /readyz HTTP/1.1\\r\\nHost:\\ api.example.com"),
            Words({"option", "httpchk", "GET", "/readyz", "HTTP/1.1\r\nHost: api.example.com"}));
}

TEST(HaproxyTokenizer, EnvironmentVariablesAreFlaggedInDoubleQuotesOnly) {
  std::vector<Diagnostic> out;
  const auto lines = tokenize("bind \"${ADDR}:6443\" '$X' $Y \"$\" \"$_Z\"\n", "f", out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].words, Words({"bind", "${ADDR}:6443", "$X", "$Y", "$", "$_Z"}));
  EXPECT_EQ(lines[0].env, std::vector<bool>({false, true, false, false, false, true}));
}

TEST(HaproxyTokenizer, BadLinesAreErrorsAndLeftOut) {
  std::vector<Diagnostic> out;
  const auto lines =
      tokenize("a 'open\nb \"open\nc \\xZZ\nd \\x4\ne ok\n" + std::string("f \0 g\n", 6),
               "haproxy.cfg", out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].words, Words({"e", "ok"}));
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].to_string(), "haproxy.cfg:1: error: unmatched single quote");
  EXPECT_EQ(out[1].to_string(), "haproxy.cfg:2: error: unmatched double quote");
  EXPECT_EQ(out[2].where.line, 3);
  EXPECT_NE(out[2].message.find("\\x escape"), std::string::npos);
  EXPECT_EQ(out[3].where.line, 4);
  EXPECT_EQ(out[4].to_string(), "haproxy.cfg:6: error: NUL byte in the line");
}

TEST(HaproxyTokenizer, UnicodeSpacesFromWebPagesAreBlanksWithOneWarning) {
  std::vector<Diagnostic> out;
  // The Octavia seed's indentation: no-break spaces and spaces; and an ideographic space.
  const auto lines = tokenize(
      "backend b\n\xC2\xA0 \xC2\xA0 mode tcp\n\xC2\xA0 \xC2\xA0 balance\xE3\x80\x80roundrobin\n"
      "x '\xC2\xA0'\n",
      "haproxy.cfg", out);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1].words, Words({"mode", "tcp"}));
  EXPECT_EQ(lines[2].words, Words({"balance", "roundrobin"}));
  EXPECT_EQ(lines[3].words, Words({"x", "\xC2\xA0"}));  // quoted: kept
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].is_error());
  EXPECT_EQ(out[0].where.line, 2);
  EXPECT_NE(out[0].message.find("no-break spaces"), std::string::npos);
}

TEST(HaproxyTokenizer, WordsMustBeUtf8CommentsNeedNot) {
  // vigil's YAML is UTF-8, so `vigil convert` could not write such a word; a comment is dropped.
  std::vector<Diagnostic> out;
  const auto lines = tokenize(
      "backend b # caf\xe9\n  option httpchk GET /ready\xb9z\n  server m \"\\xff\"\n"
      "  option httpchk GET /caf\xc3\xa9\n",
      "haproxy.cfg", out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].where.line, 2);
  EXPECT_EQ(out[0].message,
            "a word that is not UTF-8 text (byte 0xB9); vigil's config is UTF-8: write the "
            "character in UTF-8, or percent-encode it in a path");
  EXPECT_EQ(out[1].where.line, 3);  // a \x escape of a high byte is a byte, not a character
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].words, Words({"backend", "b"}));
  EXPECT_EQ(lines[1].words, Words({"option", "httpchk", "GET", "/caf\xc3\xa9"}));
}

TEST(HaproxyTokenizer, ByteOrderMarkAndLineNumbers) {
  std::vector<Diagnostic> out;
  const auto lines = tokenize("\xEF\xBB\xBFglobal\n\n\n  daemon", "f", out);
  EXPECT_TRUE(out.empty());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].words, Words({"global"}));
  EXPECT_EQ(lines[1].number, 4);
  EXPECT_EQ(lines[1].words, Words({"daemon"}));
}

}  // namespace
}  // namespace vigil::config::haproxy
