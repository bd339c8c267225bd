// The Octavia collections vigil has nothing of, answered as Octavia 11 answers a project that
// has none, so that clients that read them work: the version documents (`/`, `/v2`), the
// providers (vigil itself), flavors, flavor profiles, availability zones and their profiles,
// amphorae and L7 policies (empty lists), and quotas (none set: every project's are Octavia's
// defaults, -1, unlimited). Creating an L7 policy is Octavia's 501 for a provider that does not
// support it. Pure; any thread.
#pragma once

#include <optional>
#include <string_view>

#include "admin/http.h"
#include "admin/octavia/json_page.h"
#include "admin/octavia/reads.h"
#include "admin/target.h"

namespace vigil::admin {

// A list's 400 in the shape Octavia answers it (json_page.h PageError::framework).
Response page_fault(const PageError& error);

// Octavia's version document for `GET /`: every v2 minor version, linking to `<base>/v2`.
Response octavia_versions(const Target& target);

// True for the collections below: `parent` is "lbaas", or "octavia" for amphorae (Octavia's
// paths: /v2/lbaas/flavors, /v2/octavia/amphorae).
bool is_octavia_collection(std::string_view parent, std::string_view name);

// The answer for `method` on one of these collections, or nullopt when `s` (the segments after
// `parent`) names none of them. `catalog` finds the listener of
// an L7 policy's create.
std::optional<Response> route_octavia_collection(std::string_view method, std::string_view parent,
                                                 const std::vector<std::string>& s,
                                                 const Target& target, std::string_view body,
                                                 const Catalog& catalog);

}  // namespace vigil::admin
