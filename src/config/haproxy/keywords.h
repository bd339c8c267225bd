// The haproxy.cfg grammar vigil knows, as keyword tables in the manner of HAProxy's own
// (cfg_kws, srv_kws, bind_kws): one table per section kind and one per parameter list, each
// keyword with where it belongs, what vigil does with it and why, and its handler. The parser
// (haproxy/loader.cc) dispatches through them, and docs/haproxy.md is generated from them.
// Internal to config/.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/haproxy/draft.h"

namespace vigil::config::haproxy {

enum class Use {
  kMapped,    // becomes part of vigil's model
  kAccepted,  // vigil already behaves this way: no diagnostic
  kIgnored,   // no effect in vigil: a warning "ignored: ..." with the line and `doc` as the reason
  kRefused,   // cannot work in vigil: an error (when the section is loaded)
};

template <typename Target>
struct Keyword {
  std::string_view name;  // "bind", "option httpchk"; "tune.*" stands for every "tune." keyword
  unsigned sections;      // the SectionKind bits it belongs to
  Use use;
  std::string_view doc;  // what it becomes in vigil, or why it is accepted, ignored or refused
  void (*handle)(Parser&, const Directive&, Target&) = nullptr;  // also called for kIgnored
};

// A parameter of a `server`, `default-server` or `bind` line.
template <typename Target>
struct ParamKeyword {
  std::string_view name;  // "inter"; "set-proxy-v2-tlv-fmt*" for a prefix
  int values;             // words it takes after its name
  Use use;
  std::string_view doc;
  void (*handle)(Parser&, const ParamUse&, Target&) = nullptr;
};

struct SectionKeyword {
  std::string_view name;
  unsigned kind;  // a SectionKind; 0: a section vigil skips
  std::string_view doc;
};

std::span<const SectionKeyword> section_keywords();
std::span<const Keyword<GlobalDraft>> global_keywords();
std::span<const Keyword<ProxyDraft>> proxy_keywords();
std::span<const ParamKeyword<ServerParams>> server_keywords();
std::span<const ParamKeyword<BindDraft>> bind_keywords();

// The first keyword of `table` that `words` (from `first` on) start with: two-word names before
// one-word names, exact names before prefixes. `used` gets the number of words the name took.
template <typename Entry>
const Entry* find_keyword(std::span<const Entry> table, std::span<const std::string> words,
                          size_t& used) {
  if (words.empty()) return nullptr;
  if (words.size() >= 2) {
    const std::string two = words[0] + " " + words[1];
    for (const Entry& e : table) {
      if (e.name == two) {
        used = 2;
        return &e;
      }
    }
  }
  for (const Entry& e : table) {
    if (e.name == words[0]) {
      used = 1;
      return &e;
    }
  }
  for (const Entry& e : table) {
    if (e.name.ends_with('*') && words[0].starts_with(e.name.substr(0, e.name.size() - 1))) {
      used = 1;
      return &e;
    }
  }
  return nullptr;
}

// Parses the parameters of a server, default-server or bind line through `table`. `what` names
// the line in messages ("server", "bind").
template <typename Target>
void parse_params(Parser& p, int line, std::span<const std::string> words,
                  std::span<const ParamKeyword<Target>> table, std::string_view what,
                  Target& target);

// The keywords of a family ("option", "timeout", "http-check", "tcp-check"): their second words.
std::vector<std::string_view> family_words(std::string_view head);

// Markdown tables of every keyword, as docs/haproxy.md shows them between
// "<!-- directives:begin -->" and "<!-- directives:end -->".
std::string directive_reference_markdown();

}  // namespace vigil::config::haproxy
