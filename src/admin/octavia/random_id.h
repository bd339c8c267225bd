// Ids of objects created through the API: random UUIDv4 (RFC 4122), as Octavia gives them.
// Any thread.
#pragma once

#include <string>
#include <string_view>

namespace vigil::admin {

// Lower-case 8-4-4-4-12 form, from Boost.UUID's random generator (aborts if the kernel's CSPRNG
// fails: vigil cannot hand out ids that might repeat).
std::string random_uuid();

// True for the 8-4-4-4-12 hex form (any version), as Octavia's UuidType checks.
bool is_uuid(std::string_view text);

}  // namespace vigil::admin
