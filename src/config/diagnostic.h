// Diagnostic: one error or warning about a config, with the file:line it is about. Produced by
// config/ (loader, validation, advice), printed by `vigil check` and logged by the daemon.
// A value type.
#pragma once

#include <string>
#include <vector>

#include "model/config.h"

namespace vigil::config {

struct Diagnostic {
  enum class Severity { kError, kWarning };
  Severity severity = Severity::kError;
  model::SourceLocation where;  // file and 1-based line (0: the whole file)
  std::string message;

  bool is_error() const { return severity == Severity::kError; }
  // "vigil.yaml:12: error: unknown key \"intervall\" in health_monitor (did you mean
  // \"interval\"?)"; without a line: "vigil.yaml: error: ...".
  std::string to_string() const;
};

Diagnostic make_error(model::SourceLocation where, std::string message);
Diagnostic make_warning(model::SourceLocation where, std::string message);

int count_errors(const std::vector<Diagnostic>& diagnostics);
int count_warnings(const std::vector<Diagnostic>& diagnostics);

// Stable sort by line: diagnostics of one file in file order, those about the whole file first.
void sort_by_line(std::vector<Diagnostic>& diagnostics);

}  // namespace vigil::config
