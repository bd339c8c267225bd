// docs/configuration.md shows the key tables the loader parses with, word for word.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/advice.h"
#include "config/keys.h"
#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

std::string read_docs() {
  std::ifstream in(std::string(VIGIL_SOURCE_DIR) + "/docs/configuration.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string key_man_for_test() { return key_reference_man("1.2.3"); }

TEST(Docs, KeyReferenceMatchesTheGrammar) {
  const std::string docs = read_docs();
  const std::string begin = "<!-- keys:begin -->\n";
  const std::string end = "<!-- keys:end -->";
  const size_t from = docs.find(begin);
  const size_t to = docs.find(end);
  ASSERT_NE(from, std::string::npos) << "docs/configuration.md lacks " << begin;
  ASSERT_NE(to, std::string::npos) << "docs/configuration.md lacks " << end;
  const std::string block = docs.substr(from + begin.size(), to - from - begin.size());
  EXPECT_EQ(block, key_reference_markdown())
      << "Replace the block between the markers in docs/configuration.md with:\n"
      << key_reference_markdown();
}

TEST(Docs, EveryKeyIsDocumented) {
  for (const SectionDoc& section : key_reference()) {
    for (const KeyDoc& key : section.keys) {
      EXPECT_FALSE(key.type.empty()) << section.title << "." << key.name;
      EXPECT_FALSE(key.meaning.empty()) << section.title << "." << key.name;
    }
  }
}

// Every ```yaml block of the page is a complete config that loads without an error or a warning
// beyond those `vigil check` is meant to give for it.
TEST(Docs, YamlExamplesLoad) {
  const std::string docs = read_docs();
  const std::string open = "```yaml\n";
  int examples = 0;
  for (size_t at = docs.find(open); at != std::string::npos; at = docs.find(open, at)) {
    at += open.size();
    const size_t end = docs.find("```", at);
    ASSERT_NE(end, std::string::npos);
    const std::string yaml = docs.substr(at, end - at);
    const LoadResult r = load_yaml(yaml, "example.yaml");
    EXPECT_TRUE(r.ok()) << yaml << testing::all(r.diagnostics);
    if (r.config) {
      const auto advice = advise(*r.process, *r.config, r.monitor_opt_outs);
      EXPECT_TRUE(advice.empty()) << yaml << testing::all(advice);
    }
    ++examples;
  }
  EXPECT_GE(examples, 3);
}

// vigil.yaml(5) lists every key of every section, with its section heading.
TEST(Docs, ManPageHasEveryKey) {
  const std::string man = key_man_for_test();
  EXPECT_TRUE(man.starts_with(".TH VIGIL.YAML 5 \"\" \"vigil 1.2.3\""));
  for (const SectionDoc& section : key_reference()) {
    std::string title;
    for (char c : section.title) title += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(man.find(".SS " + title + "\n"), std::string::npos) << section.title;
    for (const KeyDoc& key : section.keys) {
      std::string name;
      for (char c : key.name) name += c == '-' ? std::string("\\-") : std::string(1, c);
      EXPECT_NE(man.find(".TP\n.BR " + name + " "), std::string::npos) << key.name;
    }
  }
}

// The example the package installs as /etc/vigil/vigil.yaml.example loads as it is, without a
// warning: an operator copies it and only changes addresses.
TEST(Docs, TheShippedExampleLoads) {
  const LoadResult r = load_file(std::string(VIGIL_SOURCE_DIR) + "/deploy/vigil.yaml");
  ASSERT_TRUE(r.ok()) << testing::all(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << testing::all(r.diagnostics);
  EXPECT_TRUE(advise(*r.process, *r.config, r.monitor_opt_outs).empty());
  EXPECT_EQ(r.process->admin.state_file, "/var/lib/vigil/state.json");
}

}  // namespace
}  // namespace vigil::config
