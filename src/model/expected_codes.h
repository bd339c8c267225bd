// The set of HTTP status codes a health monitor accepts, written as Octavia writes it:
// "200", "200,202", "200-204". A value type.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace vigil::model {

class ExpectedCodes {
 public:
  ExpectedCodes() : ranges_{{200, 200}} {}

  static Result<ExpectedCodes> parse(std::string_view text);

  bool contains(int code) const;
  std::string to_string() const;  // canonical form, parseable again
  bool operator==(const ExpectedCodes&) const = default;

 private:
  struct Range {
    int low;
    int high;
    bool operator==(const Range&) const = default;
  };
  std::vector<Range> ranges_;
};

}  // namespace vigil::model
