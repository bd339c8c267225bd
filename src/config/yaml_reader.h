// YamlReader: turns YAML nodes (config/yaml_tree.h) into typed values for the key tables, reporting
// every problem as a Diagnostic with file:line rather than an exception. Also the key table types
// (KeySpec, Section): each config section's keys live in one table, used for parsing, "unknown key"
// errors and docs. Internal to config/. One YamlReader per load; not thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "config/diagnostic.h"
#include "config/yaml_tree.h"

namespace vigil::config {

// One `key: value` of a map, as a key's read function sees it.
struct Field {
  std::string_view section;  // as in messages: "pool", "health_monitor"; empty at top level
  std::string_view key;
  const YamlNode& value;
  int line = 0;  // 1-based line of the key

  std::string path() const;  // "health_monitor.interval"
};

class YamlReader;

template <typename T>
struct KeySpec {
  std::string_view name;
  std::string_view type;           // for docs: "integer 1..10", "duration"
  std::string_view default_value;  // for docs; empty when there is none
  std::string_view meaning;        // for docs
  void (*read)(YamlReader&, const Field&, T&);
  bool required = false;
  unsigned only_for = 0;  // health_monitor keys: mask of monitor types it applies to; 0: all
};

template <typename T>
struct Section {
  std::string_view name;   // as in messages
  std::string_view title;  // for docs: where the section sits
  std::span<const KeySpec<T>> keys;
};

template <typename T>
struct SeenKey {
  const KeySpec<T>* spec;
  int line;
};

class YamlReader {
 public:
  YamlReader(std::string file, std::vector<Diagnostic>& out) : file_(std::move(file)), out_(out) {}

  const std::string& file() const { return file_; }
  model::SourceLocation at(int line) const { return {.file = file_, .line = line}; }
  void error(int line, std::string message);
  void warning(int line, std::string message);

  static int line_of(const YamlNode& node, int fallback);
  static std::string describe(const YamlNode& node);  // "a list", "\"abc\"", "nothing"

  // Each set_* stores the value when it is valid and otherwise reports an error naming the field
  // and what was expected, leaving `out` as it was.
  void set_string(const Field& f, std::string& out);  // non-empty, no control characters
  void set_name(const Field& f, std::string& out);    // stored even when invalid, to avoid
                                                      // follow-on "not defined" errors
  void set_bool(const Field& f, bool& out);
  void set_duration(const Field& f, Duration& out, Duration max);          // 0 < d <= max
  void set_duration_or_zero(const Field& f, Duration& out, Duration max);  // 0 <= d <= max
  template <typename Int>
  void set_int(const Field& f, Int& out, long long low, long long high) {
    if (auto v = integer(f, low, high)) out = static_cast<Int>(*v);
  }

  std::optional<std::string> scalar(const Field& f, std::string_view expected);
  std::optional<long long> integer(const Field& f, long long low, long long high);
  // Reports an error unless the value is a list (`what`: "a list of pools").
  bool expect_list(const Field& f, std::string_view what);

  // Reads a map through a section's key table: unknown keys, duplicate keys and missing required
  // keys are errors. Returns the keys seen, or nothing when `node` is not a map.
  template <typename T>
  std::optional<std::vector<SeenKey<T>>> read_map(const YamlNode& node, int line,
                                                  const Section<T>& section, T& out);

 private:
  void unknown_key(int line, std::string_view key, std::string_view section,
                   const std::vector<std::string_view>& known);

  std::string file_;
  std::vector<Diagnostic>& out_;
};

template <typename T>
std::optional<std::vector<SeenKey<T>>> YamlReader::read_map(const YamlNode& node, int line,
                                                            const Section<T>& section, T& out) {
  if (!node.is_map()) {
    error(line, std::string(section.name.empty() ? "the config" : section.name) +
                    ": expected a map of keys, got " + describe(node));
    return std::nullopt;
  }
  std::vector<SeenKey<T>> seen;
  for (std::size_t i = 0; i < node.entry_count(); ++i) {
    const YamlNode::Entry it = node.entry(i);
    const int key_line = line_of(it.key, line);
    if (!it.key.is_scalar()) {
      error(key_line, "a key must be a word, got " + describe(it.key));
      continue;
    }
    const KeySpec<T>* spec = nullptr;
    for (const KeySpec<T>& k : section.keys) {
      if (k.name == it.key.scalar()) spec = &k;
    }
    if (spec == nullptr) {
      std::vector<std::string_view> known;
      for (const KeySpec<T>& k : section.keys) known.push_back(k.name);
      unknown_key(key_line, it.key.scalar(), section.name, known);
      continue;
    }
    bool duplicate = false;
    for (const SeenKey<T>& s : seen) {
      if (s.spec == spec) {
        error(key_line, "duplicate key \"" + std::string(spec->name) + "\" (first at line " +
                            std::to_string(s.line) + ")");
        duplicate = true;
      }
    }
    if (duplicate) continue;
    seen.push_back({spec, key_line});
    spec->read(*this, Field{section.name, spec->name, it.value, key_line}, out);
  }
  for (const KeySpec<T>& k : section.keys) {
    if (!k.required) continue;
    bool found = false;
    for (const SeenKey<T>& s : seen) found = found || s.spec == &k;
    if (!found) {
      error(line,
            "missing required key \"" + std::string(k.name) + "\" in " + std::string(section.name));
    }
  }
  return seen;
}

}  // namespace vigil::config
