#include "config/diagnostic.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace vigil::config {

std::string Diagnostic::to_string() const {
  std::string out = where.file;
  if (where.line > 0) out += ":" + std::to_string(where.line);
  out += is_error() ? ": error: " : ": warning: ";
  // Messages quote the config's text; keep its control characters off terminals and logs.
  for (char c : message) out += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  return out;
}

Diagnostic make_error(model::SourceLocation where, std::string message) {
  return {.severity = Diagnostic::Severity::kError,
          .where = std::move(where),
          .message = std::move(message)};
}

Diagnostic make_warning(model::SourceLocation where, std::string message) {
  return {.severity = Diagnostic::Severity::kWarning,
          .where = std::move(where),
          .message = std::move(message)};
}

int count_errors(const std::vector<Diagnostic>& diagnostics) {
  return static_cast<int>(std::ranges::count_if(diagnostics, &Diagnostic::is_error));
}

int count_warnings(const std::vector<Diagnostic>& diagnostics) {
  return static_cast<int>(diagnostics.size()) - count_errors(diagnostics);
}

void sort_by_line(std::vector<Diagnostic>& diagnostics) {
  std::ranges::stable_sort(diagnostics, [](const Diagnostic& a, const Diagnostic& b) {
    return a.where.line < b.where.line;
  });
}

}  // namespace vigil::config
