// docs/haproxy.md shows the keyword tables the importer parses with, and what `vigil check` and
// `vigil convert` print for the OpenShift article's config, word for word.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/haproxy/convert.h"
#include "config/haproxy/keywords.h"
#include "config/haproxy/loader.h"
#include "config/report.h"

namespace vigil::config {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(std::string(VIGIL_SOURCE_DIR) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text between "<!-- NAME:begin -->\n" and "<!-- NAME:end -->".
std::string block(const std::string& docs, const std::string& name) {
  const std::string begin = "<!-- " + name + ":begin -->\n";
  const std::string end = "<!-- " + name + ":end -->";
  const size_t from = docs.find(begin);
  const size_t to = docs.find(end);
  EXPECT_NE(from, std::string::npos) << "docs/haproxy.md lacks " << begin;
  EXPECT_NE(to, std::string::npos) << "docs/haproxy.md lacks " << end;
  if (from == std::string::npos || to == std::string::npos || to < from) return "";
  return docs.substr(from + begin.size(), to - from - begin.size());
}

TEST(HaproxyDocs, DirectiveReferenceMatchesTheKeywordTables) {
  const std::string want = haproxy::directive_reference_markdown();
  EXPECT_EQ(block(read("docs/haproxy.md"), "directives"), want)
      << "Replace the block between the markers in docs/haproxy.md with:\n"
      << want;
}

TEST(HaproxyDocs, ExamplesAreWhatVigilPrints) {
  const std::string docs = read("docs/haproxy.md");
  const LoadResult r = load_haproxy_cfg(
      read("src/config/haproxy/testdata/openshift-article-readyz.cfg"), "haproxy.cfg");
  const std::string check = "```text\n$ vigil check -c haproxy.cfg\n" + check_report(r) + "```\n";
  EXPECT_EQ(block(docs, "check"), check) << "Replace the check block in docs/haproxy.md with:\n"
                                         << check;
  const std::string convert = "```yaml\n" + convert_report(r) + "```\n";
  EXPECT_EQ(block(docs, "convert"), convert)
      << "Replace the convert block in docs/haproxy.md with:\n"
      << convert;
}

}  // namespace
}  // namespace vigil::config
