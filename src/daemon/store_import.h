// `vigil store import`: puts the API's objects of a node's state file into the etcd prefix of its
// admin.store, the way from type file to type etcd (docs/ha.md, "One API for a pair or a fleet").
// The prefix must be empty, or hold only what an interrupted import of the same objects put
// there; the marker that tells nodes the prefix is vigil's is written last, so that no node
// takes a half-imported prefix for the whole. Member overrides stay in each node's state file.
// main()'s thread; runs its own event loop.
#pragma once

#include <ostream>
#include <string>

#include "model/process.h"

namespace vigil::daemon {

// Exit code: 0 imported; 1 refused or failed (said on `err`).
int run_store_import(const model::Store& store, const std::string& state_file, std::ostream& out,
                     std::ostream& err);

}  // namespace vigil::daemon
