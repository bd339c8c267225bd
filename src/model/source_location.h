// Where a configured value came from, for errors that must name file:line.
#pragma once

#include <string>

namespace vigil::model {

struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0 when unknown
  bool operator==(const SourceLocation&) const = default;
};

}  // namespace vigil::model
