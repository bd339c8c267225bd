// Options: the simulator's command line as plain values, parsed by main.cc and read once at
// start-up by the server.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "testing/apisim/endpoint_slices.h"

namespace vigil::apisim {

struct Options {
  std::string host = "127.0.0.1";  // an IP literal, without brackets
  std::uint16_t port = 0;          // 0: the kernel picks one (read it back from ready_file)
  std::string name = "master-01";
  std::string ready_file;  // empty: none
  std::string cert_file;   // empty: a self-signed certificate made at start-up
  std::string key_file;
  bool plain = false;  // HTTP instead of HTTPS
  Duration warmup{0};
  Duration shutdown_delay = std::chrono::seconds(5);
  Duration watch_interval = std::chrono::seconds(1);
  std::vector<std::string> fail_readyz;
  // The EndpointSlices' initial endpoints; none given: the bound listen address alone.
  std::optional<std::vector<Endpoint>> endpoints;
};

// Runs until SIGTERM (after the shutdown delay) or SIGINT; returns the process exit code.
int run(const Options& options);

}  // namespace vigil::apisim
