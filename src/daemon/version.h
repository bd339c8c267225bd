// `vigil --version`: what this binary is (version, commit, build type) and the versions of the
// libraries it runs with, for bug reports and for checking what a package really installed.
// Any thread.
#pragma once

#include <string>

namespace vigil::daemon {

// "vigil 0.1.0\ncommit: ...\nbuild: ...\nOpenSSL: ...\n..." (the first line alone is what
// help2man and scripts read).
std::string version_text();

}  // namespace vigil::daemon
