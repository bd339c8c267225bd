// The member table's two check columns: HAProxy's layered code of the last check ("L4CON",
// "L6RSP", "L7STS 500") and its duration ("12ms"). Pure; any thread.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace vigil::cli {

// The code of a member's last check (its "check" object in /v1/status) under a monitor of
// `monitor_type` ("TCP", "TLS-HELLO", "HTTP", "HTTPS"): L4OK, L6OK, L7OK 200; L4CON (refused or
// a network error), L6RSP (TLS failed), L7STS 500, L7RSP (not HTTP); L4TOUT for a TCP monitor's
// timeout and TOUT for the others', whose deadline covers connect, handshake and answer alike;
// DNS when the name did not resolve and SOCKERR for a local failure (out of descriptors).
// "-" for a result this client does not know.
std::string check_code(std::string_view monitor_type, const boost::json::object& check);

// "0.4ms", "12ms", "1.5s": the check's duration_ms.
std::string check_duration(double milliseconds);

}  // namespace vigil::cli
