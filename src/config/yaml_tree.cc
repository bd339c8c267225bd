#include "config/yaml_tree.h"

#include <yaml.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_map>
#include <utility>

namespace vigil::config {
namespace {

// libyaml's parser and one event, each released on every path out.
class Parser {
 public:
  explicit Parser(std::string_view text) {
    if (yaml_parser_initialize(&parser_) == 0) throw std::bad_alloc();
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~Parser() { yaml_parser_delete(&parser_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  yaml_parser_t* get() { return &parser_; }

 private:
  yaml_parser_t parser_{};
};

class Event {
 public:
  Event() = default;
  ~Event() { clear(); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Reads the next event; false on a syntax error (the parser holds it).
  bool next(Parser& parser) {
    clear();
    held_ = yaml_parser_parse(parser.get(), &event_) != 0;
    return held_;
  }
  const yaml_event_t& operator*() const { return event_; }
  const yaml_event_t* operator->() const { return &event_; }
  int line() const { return static_cast<int>(event_.start_mark.line) + 1; }

 private:
  void clear() {
    if (held_) yaml_event_delete(&event_);
    held_ = false;
  }
  yaml_event_t event_{};
  bool held_ = false;
};

std::string text_of(const yaml_char_t* s) {
  return s == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(s));
}

// yaml-cpp's rule, which configs were written against: an untagged plain scalar that is empty,
// "~" or null in one of its three spellings is nothing.
bool is_null_scalar(const yaml_event_t& e) {
  if (e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE || e.data.scalar.tag != nullptr) return false;
  const std::string_view v(reinterpret_cast<const char*>(e.data.scalar.value),
                           e.data.scalar.length);
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

int line_at_offset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// What stands where the parser gave up, when that can be shown: `found ","`.
std::string found_at(std::string_view text, const yaml_mark_t& mark) {
  // libyaml counts characters, not bytes; they agree while everything before is ASCII.
  const std::size_t at = mark.index;
  if (at >= text.size()) return "; found the end of the file";
  const bool ascii = std::all_of(text.begin(), text.begin() + at,
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  const char c = text[at];
  if (!ascii || !std::isprint(static_cast<unsigned char>(c))) return {};
  return "; found \"" + std::string(1, c) + "\"";
}

YamlSyntaxError syntax_error(std::string_view text, const yaml_parser_t& p) {
  if (p.error == YAML_MEMORY_ERROR) return {0, "out of memory"};
  if (p.error == YAML_READER_ERROR) {
    return {line_at_offset(text, p.problem_offset),
            "YAML syntax error: " + text_of(reinterpret_cast<const yaml_char_t*>(p.problem))};
  }
  std::string message =
      "YAML syntax error: " + text_of(reinterpret_cast<const yaml_char_t*>(p.problem));
  const std::string found = found_at(text, p.problem_mark);
  message += found;
  if (p.context != nullptr) {
    message += " (" + std::string(p.context) + " from line " +
               std::to_string(p.context_mark.line + 1) + ")";
  }
  // Inside [ ] and { } a ':' always ends a key, so an unquoted IPv6 address cannot start there.
  if (found == "; found \":\"" && p.context != nullptr &&
      std::string_view(p.context).find("flow") != std::string_view::npos) {
    message += "; quote a value that starts with ':' inside [ ] or { }, like [\"::1\"]";
  }
  return {static_cast<int>(p.problem_mark.line) + 1, std::move(message)};
}

// Builds the tree from the events of one document: containers being filled stay on a stack,
// and a finished node moves into the one below it.
class Builder {
 public:
  std::optional<YamlSyntaxError> scalar(YamlNode node, const yaml_char_t* anchor) {
    finish(std::move(node), text_of(anchor));
    return std::nullopt;
  }

  std::optional<YamlSyntaxError> open(YamlNode::Kind kind, int line, const yaml_char_t* anchor) {
    if (open_.size() >= kYamlMaxDepth) {
      return YamlSyntaxError{
          line, "the YAML is nested more than " + std::to_string(kYamlMaxDepth) + " levels deep"};
    }
    open_.push_back({YamlNode(kind, line), text_of(anchor)});
    return std::nullopt;
  }

  std::optional<YamlSyntaxError> close() {
    Open last = std::move(open_.back());
    open_.pop_back();
    finish(std::move(last.node), std::move(last.anchor));
    return std::nullopt;
  }

  std::optional<YamlSyntaxError> alias(const yaml_char_t* anchor, int line) {
    const std::string name = text_of(anchor);
    const auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      // Also an alias inside the node its anchor names: that node is not finished yet.
      return YamlSyntaxError{line,
                             "alias *" + name.substr(0, 64) + " refers to no anchor before it"};
    }
    alias_nodes_ += it->second.size;
    if (alias_nodes_ > kYamlMaxAliasNodes) {
      return YamlSyntaxError{line, "aliases expand the YAML to more than " +
                                       std::to_string(kYamlMaxAliasNodes) + " nodes"};
    }
    place(it->second.node);
    return std::nullopt;
  }

  YamlNode take_root() { return std::move(root_); }

 private:
  struct Open {
    YamlNode node;
    std::string anchor;
  };
  struct Anchored {
    YamlNode node;
    std::size_t size;
  };

  void finish(YamlNode node, std::string anchor) {
    if (!anchor.empty()) {
      const std::size_t size = node.subtree_size();
      anchors_.insert_or_assign(std::move(anchor), Anchored{node, size});
    }
    place(std::move(node));
  }

  void place(YamlNode node) {
    if (open_.empty()) {
      root_ = std::move(node);
    } else {
      open_.back().node.add(std::move(node));
    }
  }

  std::vector<Open> open_;
  YamlNode root_;
  std::unordered_map<std::string, Anchored> anchors_;
  std::size_t alias_nodes_ = 0;
};

std::optional<YamlSyntaxError> build(const yaml_event_t& e, int line, Builder& b) {
  switch (e.type) {
    case YAML_SCALAR_EVENT:
      if (is_null_scalar(e))
        return b.scalar(YamlNode(YamlNode::Kind::kNull, line), e.data.scalar.anchor);
      return b.scalar(YamlNode(YamlNode::Kind::kScalar, line,
                               std::string(reinterpret_cast<const char*>(e.data.scalar.value),
                                           e.data.scalar.length)),
                      e.data.scalar.anchor);
    case YAML_ALIAS_EVENT:
      return b.alias(e.data.alias.anchor, line);
    case YAML_SEQUENCE_START_EVENT:
      return b.open(YamlNode::Kind::kSequence, line, e.data.sequence_start.anchor);
    case YAML_MAPPING_START_EVENT:
      return b.open(YamlNode::Kind::kMap, line, e.data.mapping_start.anchor);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      return b.close();
    default:
      return std::nullopt;
  }
}

bool is_node_event(yaml_event_type_t type) {
  return type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT ||
         type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT;
}

}  // namespace

std::size_t YamlNode::subtree_size() const {
  std::size_t n = 1;
  for (const YamlNode& child : children_) n += child.subtree_size();
  return n;
}

std::expected<YamlNode, YamlSyntaxError> parse_yaml(std::string_view text) {
  Parser parser(text);
  Event event;
  Builder builder;
  int documents = 0;
  while (true) {
    if (!event.next(parser)) return std::unexpected(syntax_error(text, *parser.get()));
    const yaml_event_type_t type = event->type;
    if (type == YAML_STREAM_END_EVENT) break;
    if (type == YAML_DOCUMENT_START_EVENT) ++documents;
    if (documents > 1 && is_node_event(type)) {
      return std::unexpected(YamlSyntaxError{
          event.line(), "a second YAML document (after ---): a config is one document"});
    }
    if (auto error = build(*event, event.line(), builder))
      return std::unexpected(std::move(*error));
  }
  return builder.take_root();
}

}  // namespace vigil::config
