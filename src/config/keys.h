// The reference of every vigil YAML key, read from the same tables the loader parses with, so that
// docs/configuration.md is generated from (and tested against) the grammar. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vigil::config {

struct KeyDoc {
  std::string_view name;
  std::string_view type;
  std::string_view default_value;  // empty: none
  std::string_view meaning;
  bool required = false;
  std::string applies_to;  // "HTTP and HTTPS" for monitor keys of some types only; empty: all
};

struct SectionDoc {
  std::string_view title;  // "pools[].health_monitor"
  std::vector<KeyDoc> keys;
};

std::vector<SectionDoc> key_reference();

// Markdown tables, one per section, as they appear in docs/configuration.md between the lines
// "<!-- keys:begin -->" and "<!-- keys:end -->".
std::string key_reference_markdown();

// vigil.yaml(5): the same reference as a man page (roff, man macros), for `man vigil.yaml`.
// `version` goes into the page's footer.
std::string key_reference_man(std::string_view version);

// `text` made safe inside a Markdown table cell ('|' escaped); for every generated reference.
std::string markdown_cell(std::string_view text);

}  // namespace vigil::config
