// load_yaml: YAML text -> ConfigDraft through the key tables -> cross-object checks -> Config.
// yaml-cpp throws on syntax errors; this is the boundary where that becomes a diagnostic.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <future>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "config/address.h"
#include "config/loader.h"
#include "config/validate.h"
#include "config/yaml_keys.h"

namespace vigil::config {
namespace {

// Where each document of a stream starts; the parse builds no nodes.
class DocumentStarts final : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> first;  // of the document being handled

  void OnDocumentStart(const YAML::Mark&) override { first.reset(); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { see(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { see(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    see(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    see(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    see(mark);
  }
  void OnMapEnd() override {}

 private:
  void see(const YAML::Mark& mark) {
    if (!first) first = mark;
  }
};

// Reports a second document. yaml-cpp 0.7's LoadAll never returns on a token it cannot start a
// node with at document level, such as a stray ',' (jbeder/yaml-cpp#1040, fixed upstream in
// #1319): its parser yields empty documents at the same place forever. So documents are stepped
// through here at most twice, and a "second document" that starts where the first did is that
// stuck token.
void check_single_document(std::string_view text, YamlReader& reader) {
  std::istringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  DocumentStarts starts;
  if (!parser.HandleNextDocument(starts)) return;
  const std::optional<YAML::Mark> first = starts.first;
  if (!parser.HandleNextDocument(starts) || !starts.first) return;
  const YAML::Mark& second = *starts.first;
  if (first && first->pos == second.pos && second.pos >= 0 &&
      static_cast<size_t>(second.pos) < text.size()) {
    const char c = text[static_cast<size_t>(second.pos)];
    const std::string shown = std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "?";
    reader.error(second.line + 1, "YAML syntax error: unexpected \"" + shown + "\"");
    return;
  }
  reader.error(second.line + 1, "a second YAML document (after ---): a config is one document");
}

void read_document(std::string_view text, const std::string& file_name, LoadResult& result) {
  YamlReader reader(file_name, result.diagnostics);
  // The check parses the first document again: beside the load, on a thread of its own, it adds
  // nothing to the time a file of ten thousand listeners takes (about 0.6 s here). Its findings
  // go to a reader of its own, and join ours once both are done; an error of the load's comes
  // first (the check's future is waited for, and dropped, as the exception leaves).
  std::vector<Diagnostic> found;
  const auto check = [text, &file_name, &found] {
    YamlReader mine(file_name, found);
    check_single_document(text, mine);
  };
  std::future<void> checked;
  try {
    checked = std::async(std::launch::async, check);
  } catch (const std::system_error&) {  // no thread to be had: one after the other, then
    checked = std::async(std::launch::deferred, check);
  }
  const YAML::Node root = YAML::Load(std::string(text));
  checked.get();
  result.diagnostics.insert(result.diagnostics.end(), found.begin(), found.end());
  if (root.IsNull()) {
    if (result.diagnostics.empty()) reader.error(0, "empty config");
    return;
  }
  ConfigDraft draft;
  draft.source_file = file_name;
  draft.name = name_from_file(file_name, "vigil");
  if (!reader.read_map(root, YamlReader::line_of(root, 1), top_section(), draft)) return;
  validate(draft, result.diagnostics);
  result.monitor_opt_outs = draft.monitor_opt_outs;
  result.config = std::move(static_cast<model::Config&>(draft));
}

}  // namespace

LoadResult load_yaml(std::string_view text, const std::string& file_name) {
  LoadResult result;
  try {
    read_document(text, file_name, result);
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
    result.diagnostics.push_back(
        make_error({.file = file_name, .line = line}, "YAML syntax error: " + e.msg));
  } catch (const std::exception& e) {
    result.diagnostics.push_back(
        make_error({.file = file_name, .line = 0}, std::string("cannot load: ") + e.what()));
  }
  sort_by_line(result.diagnostics);
  if (!result.ok()) result.config.reset();
  return result;
}

}  // namespace vigil::config
