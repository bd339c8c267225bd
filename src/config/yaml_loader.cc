// load_yaml: YAML text -> tree (config/yaml_tree.h) -> ConfigDraft through the key tables ->
// cross-object checks -> Config. A syntax error ends the load as one diagnostic at its line.
#include <exception>
#include <string>
#include <vector>

#include "config/address.h"
#include "config/loader.h"
#include "config/validate.h"
#include "config/yaml_keys.h"
#include "config/yaml_tree.h"

namespace vigil::config {
namespace {

void read_document(std::string_view text, const std::string& file_name, LoadResult& result) {
  YamlReader reader(file_name, result.diagnostics);
  auto root = parse_yaml(text);
  if (!root) {
    reader.error(root.error().line, std::move(root.error().message));
    return;
  }
  if (root->is_null()) {
    reader.error(0, "empty config");
    return;
  }
  ConfigDraft draft;
  draft.source_file = file_name;
  draft.name = name_from_file(file_name, "vigil");
  if (!reader.read_map(*root, YamlReader::line_of(*root, 1), top_section(), draft)) return;
  *root = YamlNode();  // the draft holds copies: the tree goes before the checks build theirs
  validate(draft.process, draft, result.diagnostics);
  result.monitor_opt_outs = draft.monitor_opt_outs;
  result.process = std::move(draft.process);
  result.config = std::move(static_cast<model::Config&>(draft));
}

}  // namespace

LoadResult load_yaml(std::string_view text, const std::string& file_name) {
  LoadResult result;
  try {
    read_document(text, file_name, result);
  } catch (const std::exception& e) {
    result.diagnostics.push_back(
        make_error({.file = file_name, .line = 0}, std::string("cannot load: ") + e.what()));
  }
  sort_by_line(result.diagnostics);
  if (!result.ok()) {
    result.process.reset();
    result.config.reset();
  }
  return result;
}

}  // namespace vigil::config
