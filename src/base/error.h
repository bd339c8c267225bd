// Error and Result: how vigil reports failures that come from the environment (bad config, a
// refused connection, a malformed request). Exceptions are not used for these; broken invariants
// abort. Thread-safe as values.
#pragma once

#include <expected>
#include <string>
#include <utility>

namespace vigil {

struct Error {
  std::string message;
  int code = 0;  // the errno behind it, where one tells a caller what to do next (EADDRINUSE)
};

template <typename T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message) {
  return std::unexpected<Error>(Error{std::move(message)});
}

}  // namespace vigil
