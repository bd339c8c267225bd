#include "config/load_result.h"

namespace vigil::config {

bool LoadResult::ok() const { return count_errors(diagnostics) == 0; }

}  // namespace vigil::config
