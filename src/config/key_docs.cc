#include "config/keys.h"
#include "config/yaml_keys.h"

namespace vigil::config {
namespace {

template <typename T>
SectionDoc document(const Section<T>& section) {
  SectionDoc doc{.title = section.title, .keys = {}};
  for (const KeySpec<T>& k : section.keys) {
    doc.keys.push_back({.name = k.name,
                        .type = k.type,
                        .default_value = k.default_value,
                        .meaning = k.meaning,
                        .required = k.required,
                        .applies_to = k.only_for ? monitor_types_text(k.only_for) : ""});
  }
  return doc;
}

}  // namespace

std::vector<SectionDoc> key_reference() {
  return {document(top_section()),           document(admin_section()),
          document(store_section()),         document(store_tls_section()),
          document(admin_metrics_section()), document(log_section()),
          document(peer_section()),          document(peers_auth_section()),
          document(peer_tls_section()),      document(listener_section()),
          document(pool_section()),          document(member_section()),
          document(monitor_section()),       document(tls_section()),
          document(persistence_section()),   document(kubernetes_members_section())};
}

std::string key_reference_markdown() {
  std::string out;
  for (const SectionDoc& section : key_reference()) {
    out += "### " + std::string(section.title) + "\n\n";
    out += "| key | type | default | meaning |\n|---|---|---|---|\n";
    for (const KeyDoc& k : section.keys) {
      std::string meaning = markdown_cell(k.meaning);
      if (!k.applies_to.empty()) meaning = "(" + k.applies_to + " only) " + meaning;
      const std::string default_value = k.required                ? "required"
                                        : k.default_value.empty() ? "-"
                                                                  : markdown_cell(k.default_value);
      out += "| `" + std::string(k.name) + "` | " + markdown_cell(k.type) + " | " + default_value +
             " | " + meaning + " |\n";
    }
    out += "\n";
  }
  out.pop_back();  // one newline at the end, not a blank line
  return out;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace vigil::config
