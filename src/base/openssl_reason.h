// OpenSSL's reason for the last failure, for messages about TLS files and handshakes: the
// peers' and the etcd client's TLS contexts say the same thing for the same problem.
#pragma once

#include <boost/system/error_code.hpp>
#include <string>

namespace vigil {

// "no such file", "no start line" for a file that is not PEM: `ec`'s message with OpenSSL's last
// reason when it adds one, or "unreadable"; OpenSSL's error queue is emptied for the next call.
std::string openssl_reason(const boost::system::error_code& ec);

}  // namespace vigil
