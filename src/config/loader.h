// Loading a config file into the model: text in, model::Config out, with every problem as a
// Diagnostic naming file:line. The only code that parses config text. Pure functions of their
// input (load_file reads the file); safe to call from any thread; never throws.
#pragma once

#include <string>
#include <string_view>

#include "config/load_result.h"

namespace vigil::config {

enum class Format { kYaml, kHaproxyCfg };

// haproxy.cfg when the first line that is not blank or a comment starts with one of its section
// keywords (global, defaults, frontend, backend, listen, peers, resolvers, userlist).
Format detect_format(std::string_view text);

// Reads the file and loads it in the format its content shows. Errors such as
// "cannot read FILE: No such file or directory" come back as diagnostics.
LoadResult load_file(const std::string& path);

// Loads vigil YAML (docs/configuration.md). `file_name` is used in diagnostics and, by its stem,
// as the default load balancer name.
LoadResult load_yaml(std::string_view text, const std::string& file_name);

}  // namespace vigil::config
