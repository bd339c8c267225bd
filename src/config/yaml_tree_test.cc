// parse_yaml: the tree, its lines, what counts as nothing, aliases, and the bounds on any input.
#include "config/yaml_tree.h"

#include <gtest/gtest.h>

#include <string>

namespace vigil::config {
namespace {

YamlNode parse_ok(std::string_view text) {
  auto root = parse_yaml(text);
  EXPECT_TRUE(root.has_value()) << (root ? "" : root.error().message);
  return root ? std::move(*root) : YamlNode();
}

YamlSyntaxError parse_error(std::string_view text) {
  auto root = parse_yaml(text);
  EXPECT_FALSE(root.has_value()) << text;
  return root ? YamlSyntaxError{} : root.error();
}

TEST(YamlTree, KindsTextAndLines) {
  const YamlNode root =
      parse_ok("# top\npools:\n  - name: a\n    members: [{port: 80}]\nworkers: 2\n");
  ASSERT_TRUE(root.is_map());
  ASSERT_EQ(root.entry_count(), 2u);
  EXPECT_EQ(root.entry(0).key.scalar(), "pools");
  EXPECT_EQ(root.entry(0).key.line(), 2);
  const YamlNode& pools = root.entry(0).value;
  ASSERT_TRUE(pools.is_sequence());
  ASSERT_EQ(pools.items().size(), 1u);
  const YamlNode& pool = pools.items()[0];
  EXPECT_EQ(pool.line(), 3);
  ASSERT_EQ(pool.entry_count(), 2u);
  EXPECT_EQ(pool.entry(1).key.line(), 4);
  const YamlNode& member = pool.entry(1).value.items()[0];
  EXPECT_EQ(member.entry(0).value.scalar(), "80");
  EXPECT_EQ(member.entry(0).value.line(), 4);
  EXPECT_EQ(root.entry(1).value.scalar(), "2");
  EXPECT_EQ(root.entry(1).value.line(), 5);
}

TEST(YamlTree, ScalarsStayText) {
  // No YAML 1.1 guessing: the key tables decide what yes, 010 or 1e3 mean.
  const YamlNode root =
      parse_ok("a: yes\nb: 010\nc: \"x\\ty\"\nd: 'it''s'\ne: !!str 5\nf: |\n  two\n  lines\n");
  EXPECT_EQ(root.entry(0).value.scalar(), "yes");
  EXPECT_EQ(root.entry(1).value.scalar(), "010");
  EXPECT_EQ(root.entry(2).value.scalar(), "x\ty");
  EXPECT_EQ(root.entry(3).value.scalar(), "it's");
  EXPECT_EQ(root.entry(4).value.scalar(), "5");
  EXPECT_EQ(root.entry(5).value.scalar(), "two\nlines\n");
}

TEST(YamlTree, NothingIsAnUnquotedEmptyTildeOrNull) {
  const YamlNode root = parse_ok("a:\nb: ~\nc: null\nd: NULL\ne: \"\"\nf: 'null'\ng: nil\n");
  EXPECT_TRUE(root.entry(0).value.is_null());
  EXPECT_TRUE(root.entry(1).value.is_null());
  EXPECT_TRUE(root.entry(2).value.is_null());
  EXPECT_TRUE(root.entry(3).value.is_null());
  EXPECT_TRUE(root.entry(4).value.is_scalar());  // quoted: an empty string, not nothing
  EXPECT_EQ(root.entry(5).value.scalar(), "null");
  EXPECT_EQ(root.entry(6).value.scalar(), "nil");
}

TEST(YamlTree, EmptyStreamsAreNothing) {
  EXPECT_TRUE(parse_ok("").is_null());
  EXPECT_TRUE(parse_ok("# only a comment\n\n").is_null());
  EXPECT_TRUE(parse_ok("---\n").is_null());
}

TEST(YamlTree, DuplicateKeysAreKeptForTheKeyTables) {
  const YamlNode root = parse_ok("a: 1\na: 2\n");
  ASSERT_EQ(root.entry_count(), 2u);
  EXPECT_EQ(root.entry(1).value.scalar(), "2");
  EXPECT_EQ(root.entry(1).key.line(), 2);
}

TEST(YamlTree, AnAliasIsACopyOfItsAnchor) {
  const YamlNode root = parse_ok("m: &mon {type: TCP}\np: [*mon, *mon]\n");
  const YamlNode& list = root.entry(1).value;
  ASSERT_EQ(list.items().size(), 2u);
  EXPECT_EQ(list.items()[1].entry(0).value.scalar(), "TCP");
  EXPECT_EQ(list.items()[1].line(), 1);  // where the anchored node is written
}

TEST(YamlTree, AnAliasMustFollowAFinishedAnchor) {
  EXPECT_EQ(parse_error("a: *nowhere\n").message, "alias *nowhere refers to no anchor before it");
  const YamlSyntaxError self = parse_error("a: &a [1, *a]\n");
  EXPECT_EQ(self.line, 1);
  EXPECT_EQ(self.message, "alias *a refers to no anchor before it");
}

TEST(YamlTree, AliasesThatWouldExplodeAreRefused) {
  // Each level holds ten of the one below: 10^7 nodes from a few hundred bytes.
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 7; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", " : "") + prev;
    text += "]\n";
  }
  const YamlSyntaxError e = parse_error(text);
  EXPECT_EQ(e.message, "aliases expand the YAML to more than 1000000 nodes");
  EXPECT_EQ(e.line, 6);  // l4 is 111,111 nodes: l5's tenth alias of it passes a million
}

TEST(YamlTree, DeepNestingIsRefusedNotRecursedInto) {
  const YamlSyntaxError e = parse_error(std::string(100000, '['));
  EXPECT_EQ(e.message, "the YAML is nested more than 64 levels deep");
  EXPECT_EQ(e.line, 1);
  std::string deep_but_allowed = std::string(kYamlMaxDepth, '[') + std::string(kYamlMaxDepth, ']');
  EXPECT_TRUE(parse_yaml(deep_but_allowed).has_value());
}

TEST(YamlTree, ASecondDocumentIsAnErrorAtItsFirstNode) {
  const YamlSyntaxError e = parse_error("a: 1\n---\n\nb: 2\n");
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.message, "a second YAML document (after ---): a config is one document");
}

TEST(YamlTree, SyntaxErrorsNameTheirLineWhatWasFoundAndTheContext) {
  const YamlSyntaxError flow = parse_error("a:\n  b: {c: 1\n");
  EXPECT_EQ(flow.line, 3);
  EXPECT_EQ(flow.message,
            "YAML syntax error: did not find expected ',' or '}'; found the end of the file "
            "(while parsing a flow mapping from line 2)");
  const YamlSyntaxError tab = parse_error("a:\n\t- b\n");
  EXPECT_EQ(tab.line, 2);
  EXPECT_NE(tab.message.find("found character that cannot start any token"), std::string::npos);
}

TEST(YamlTree, BadBytesNameTheirLine) {
  const YamlSyntaxError utf8 = parse_error("a: 1\nb: caf\xe9\n");
  EXPECT_EQ(utf8.line, 2);
  EXPECT_EQ(utf8.message, "YAML syntax error: incomplete UTF-8 octet sequence");
  const YamlSyntaxError nul = parse_error(std::string("a: 1\n\nb: \"x\0y\"\n", 15));
  EXPECT_EQ(nul.line, 3);
  EXPECT_EQ(nul.message, "YAML syntax error: control characters are not allowed");
}

}  // namespace
}  // namespace vigil::config
