// Selector: a Kubernetes label or field selector of the equality-based kind ("a=b,c!=d,e,!f"), as
// kubectl and client-go send them in ?labelSelector= and ?fieldSelector=. A value type.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace vigil::apisim {

class Selector {
 public:
  // An empty text selects everything. The set-based forms ("a in (b,c)") are refused: no client
  // of the simulator sends them, and a wrong match would pass unnoticed.
  static Result<Selector> parse(std::string_view text);

  bool matches(const std::map<std::string, std::string, std::less<>>& labels) const;
  // Adds "key=value", e.g. the namespace of a namespaced request to its field selector.
  void require(std::string key, std::string value);

 private:
  enum class Op { kEquals, kNotEquals, kExists, kNotExists };
  struct Requirement {
    std::string key;
    Op op = Op::kEquals;
    std::string value;
  };
  std::vector<Requirement> requirements_;
};

}  // namespace vigil::apisim
