// The section table, and what every keyword table shares: the helpers of their handlers, the
// parsing of server and bind parameters, and the reference docs/haproxy.md shows. The tables are
// in haproxy/global_keywords.cc and haproxy/proxy_keywords.cc, with the handlers of frontends,
// backends and checks beside them (haproxy_{frontend,backend,check}_keywords.cc). A handler
// stores what a directive says in the draft (haproxy/draft.h) and reports problems of its own
// values; what the directives mean together (which check a backend runs, a listener's idle
// timeout) is decided in haproxy/build.cc and haproxy/monitor.cc.
#include "config/haproxy/keywords.h"

#include <cctype>

#include "base/ascii.h"
#include "config/haproxy/handlers.h"
#include "config/keys.h"
#include "config/suggest.h"

namespace vigil::config::haproxy {

std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 60)) out += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  return text.size() > 60 ? out + "..." : out;
}

bool needs_args(Parser& p, const Directive& d, size_t n, std::string_view expected) {
  if (d.args().size() >= n) return true;
  p.error(d.line(), "`" + d.keyword() + "` needs " + std::string(expected));
  return false;
}

void extra_args(Parser& p, const Directive& d, size_t used) {
  if (d.args().size() > used) {
    p.warning(d.line(), "ignored: extra words after `" + d.keyword() + "`: `" +
                            shown(d.args()[used]) + "`...");
  }
}

namespace {

constexpr SectionKeyword kSectionKeywords[] = {
    {"global", kGlobal,
     "Process-wide settings; nbthread, ssl-server-verify, ca-base and crt-base "
     "are used."},
    {"defaults", kDefaults,
     "Settings for the proxies that follow (or that name it with `from`), unnamed or named; a "
     "new defaults section starts from HAProxy's defaults again."},
    {"frontend", kFrontend, "Listeners: one per bind address."},
    {"backend", kBackend, "A pool: its servers are the members."},
    {"listen", kListen, "A frontend and a backend in one: listeners and a pool of the same name."},
    {"peers", 0, "replicates HAProxy's stick tables between nodes; vigil's stay on each node"},
    {"resolvers", 0, "vigil resolves host names with the system resolver"},
    {"userlist", 0, "vigil's API uses a token (admin.token_file)"},
    {"cache", 0, kHttpOnly},
    {"http-errors", 0, kHttpOnly},
    {"fcgi-app", 0, kHttpOnly},
    {"program", 0, "vigil does not start other programs; use systemd units"},
    {"ring", 0, kLogging},
    {"log-forward", 0, kLogging},
    {"mailers", 0, "vigil logs transitions and exports them as metrics; alert from there"},
    {"crt-store", 0, kBindTls},
    {"traces", 0, "HAProxy-specific"},
};

}  // namespace

std::string_view section_name(unsigned kind) {
  switch (kind) {
    case kGlobal:
      return "global";
    case kDefaults:
      return "defaults";
    case kFrontend:
      return "frontend";
    case kBackend:
      return "backend";
    case kListen:
      return "listen";
  }
  return "?";
}

std::span<const SectionKeyword> section_keywords() { return kSectionKeywords; }

template <typename Target>
void parse_params(Parser& p, int line, std::span<const std::string> words,
                  std::span<const ParamKeyword<Target>> table, std::string_view what,
                  Target& target) {
  for (size_t i = 0; i < words.size();) {
    size_t used = 0;
    const ParamKeyword<Target>* k = find_keyword(table, words.subspan(i, 1), used);
    if (k == nullptr) {
      std::vector<std::string_view> names;
      for (const auto& e : table) names.push_back(e.name);
      p.warning(line, "ignored: unknown " + std::string(what) + " parameter `" + shown(words[i]) +
                          "`" + did_you_mean(words[i], names));
      ++i;
      continue;
    }
    const size_t count = static_cast<size_t>(k->values);
    if (i + 1 + count > words.size()) {
      p.error(line, "`" + shown(words[i]) + "` on a " + std::string(what) + " line needs " +
                        (count == 1 ? "a value" : std::to_string(count) + " values"));
      break;
    }
    const ParamUse use{.line = line, .name = words[i], .values = words.subspan(i + 1, count)};
    if (k->use == Use::kIgnored) {
      p.warning(line, "ignored: " + std::string(what) + " parameter `" + use.text() +
                          "`: " + std::string(k->doc));
    }
    if (k->handle != nullptr) k->handle(p, use, target);
    i += 1 + count;
  }
}
template void parse_params(Parser&, int, std::span<const std::string>,
                           std::span<const ParamKeyword<ServerParams>>, std::string_view,
                           ServerParams&);
template void parse_params(Parser&, int, std::span<const std::string>,
                           std::span<const ParamKeyword<BindDraft>>, std::string_view, BindDraft&);

std::vector<std::string_view> family_words(std::string_view head) {
  std::vector<std::string_view> out;
  for (const auto& k : proxy_keywords()) {
    const size_t space = k.name.find(' ');
    if (space != std::string_view::npos && k.name.substr(0, space) == head) {
      out.push_back(k.name.substr(space + 1));
    }
  }
  return out;
}

namespace {

std::string what_vigil_does(Use use, std::string_view doc) {
  std::string text(doc);
  if (!text.empty() && !text.ends_with('.')) text += '.';
  switch (use) {
    case Use::kMapped:
      return markdown_cell(text);
    case Use::kAccepted:
      return "accepted: " + markdown_cell(text);
    case Use::kIgnored:
      return "ignored (warning): " + markdown_cell(text);
    case Use::kRefused:
      return "**error**: " + markdown_cell(text);
  }
  return "";
}

std::string sections_text(unsigned sections) {
  std::string out;
  for (unsigned kind : {kDefaults, kFrontend, kBackend, kListen}) {
    if ((sections & kind) == 0) continue;
    if (!out.empty()) out += ", ";
    out += section_name(kind);
  }
  return out;
}

template <typename Entry>
std::string param_table(std::string_view title, std::span<const Entry> table) {
  std::string out = "### " + std::string(title) + "\n\n| parameter | vigil |\n|---|---|\n";
  for (const Entry& e : table) {
    std::string name(e.name);
    for (int i = 0; i < e.values; ++i) name += " <value>";
    out += "| `" + name + "` | " + what_vigil_does(e.use, e.doc) + " |\n";
  }
  return out;
}

}  // namespace

std::string directive_reference_markdown() {
  std::string out = "### Sections\n\n| section | vigil |\n|---|---|\n";
  for (const SectionKeyword& s : kSectionKeywords) {
    out += "| `" + std::string(s.name) + "` | " +
           what_vigil_does(s.kind == 0 ? Use::kIgnored : Use::kMapped, s.doc) + " |\n";
  }
  out += "\n### global\n\n| directive | vigil |\n|---|---|\n";
  for (const auto& k : global_keywords()) {
    out += "| `" + std::string(k.name) + "` | " + what_vigil_does(k.use, k.doc) + " |\n";
  }
  out +=
      "\n### defaults, frontend, backend, listen\n\n| directive | sections | vigil |\n"
      "|---|---|---|\n";
  for (const auto& k : proxy_keywords()) {
    out += "| `" + std::string(k.name) + "` | " + sections_text(k.sections) + " | " +
           what_vigil_does(k.use, k.doc) + " |\n";
  }
  out += "\n" + param_table("server and default-server parameters", server_keywords());
  out += "\n" + param_table("bind parameters", bind_keywords());
  return out;
}

}  // namespace vigil::config::haproxy
