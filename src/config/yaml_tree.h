// YamlNode: one YAML document as a tree of scalars, lists and maps, each node with the line it
// starts on, read by libyaml's event parser (parse_yaml). The config's key tables walk this tree.
//
// Why not yaml-cpp's nodes: yaml-cpp 0.7 read a file of ten thousand listeners in 1.3 s (most of
// it its scanner and a heap node per value), libyaml's parser reads the same file in 0.1 s, and
// yaml-cpp's multi-document API loops on a stray token (jbeder/yaml-cpp#1040). Values stay text:
// the key tables say what each one must be, so no tag or YAML 1.1 type guessing is applied.
#pragma once

#include <cstddef>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vigil::config {

class YamlNode {
 public:
  enum class Kind : unsigned char { kNull, kScalar, kSequence, kMap };

  YamlNode() = default;
  YamlNode(Kind kind, int line, std::string text = {})
      : kind_(kind), line_(line), text_(std::move(text)) {}

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }

  // 1-based; 0 when the node comes from nowhere (a default-made node).
  int line() const { return line_; }
  // A scalar's text; empty for the other kinds.
  const std::string& scalar() const { return text_; }

  // A list's items.
  std::span<const YamlNode> items() const {
    return kind_ == Kind::kSequence ? std::span<const YamlNode>(children_)
                                    : std::span<const YamlNode>();
  }

  // A map's entries, in file order, duplicates kept (the key tables report them).
  struct Entry {
    const YamlNode& key;
    const YamlNode& value;
  };
  std::size_t entry_count() const { return kind_ == Kind::kMap ? children_.size() / 2 : 0; }
  Entry entry(std::size_t i) const { return {children_[2 * i], children_[2 * i + 1]}; }

  // Building (parse_yaml and tests): a list takes items, a map takes a key then its value.
  void add(YamlNode child) { children_.push_back(std::move(child)); }
  std::size_t subtree_size() const;  // this node and all below it

 private:
  Kind kind_ = Kind::kNull;
  int line_ = 0;
  std::string text_;
  std::vector<YamlNode> children_;  // a map's keys and values alternate
};

struct YamlSyntaxError {
  int line = 0;  // 1-based; 0 when unknown
  std::string message;
};

// Nesting and aliases are bounded so that no input can exhaust the stack or memory: a document
// nested deeper than this is refused,
inline constexpr std::size_t kYamlMaxDepth = 64;
// and so is one whose aliases (*name) would copy more nodes than this in all.
inline constexpr std::size_t kYamlMaxAliasNodes = 1'000'000;

// Reads one YAML document. An empty stream (or comments only) is a null node; a second document
// is an error at its first line.
std::expected<YamlNode, YamlSyntaxError> parse_yaml(std::string_view text);

}  // namespace vigil::config
