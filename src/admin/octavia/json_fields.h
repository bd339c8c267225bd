// Reading the JSON object of one API request (or of the state file) field by field, with the
// wording Octavia (WSME) uses for what is wrong, so that clients see messages they know:
// "Invalid input for field/attribute max_retries. Value: '0'. Value should be greater or equal
// to 1". The first problem wins and later reads return nothing; finish() also refuses keys that
// nothing read. Pure; any thread.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admin/octavia/objects.h"

namespace vigil::admin {

// Parses a request body that must be {"<wrapper>": {...}} and returns the inner object. Errors
// are 400, in Octavia's (WSME's) words where it has some: malformed JSON ("Request is not in
// valid JSON format"), another key beside the wrapper, another shape.
ApiResult<boost::json::object> request_object(std::string_view body, std::string_view wrapper);

// The name WSME gives the body of a create or update in its messages: "member_" for "member"
// (Octavia's controllers call the argument so), "load_balancer" for "loadbalancer".
std::string wsme_argument(std::string_view wrapper);

// "Unknown attribute for argument member_.member: colour" (attributes, for several), as WSME.
std::string unknown_attributes(std::string_view argument, const std::vector<std::string>& keys);

class FieldReader {
 public:
  // `argument` names the object in messages: "member_.member" as WSME does for a request,
  // "loadbalancers[0]" in the state file.
  FieldReader(const boost::json::object& object, std::string argument);

  bool has(std::string_view key);      // present, null included
  bool is_null(std::string_view key);  // present and null

  // Absent or null: nullopt (callers apply defaults, or is_null() for PUT's "reset").
  std::optional<std::string> string(std::string_view key, size_t max_length = 255);
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max);
  std::optional<bool> boolean(std::string_view key);
  std::optional<double> number(std::string_view key);
  std::optional<std::vector<std::string>> strings(std::string_view key);  // e.g. tags
  // A nested object (session_persistence): null pointer when absent, null or not an object.
  const boost::json::object* object(std::string_view key);
  std::optional<std::string> one_of(std::string_view key,
                                    std::initializer_list<std::string_view> allowed);
  std::optional<std::string> one_of(std::string_view key,
                                    std::span<const std::string_view> allowed);

  // "Mandatory field missing." when the key is absent or null.
  void require(std::string_view key);
  // An Octavia field vigil does not implement: fine when absent, null, false, "" or empty; any
  // other value is refused with `why`.
  void unsupported(std::string_view key, std::string_view why);
  // An Octavia field vigil accepts and ignores (read-only fields echoed back by some clients).
  void ignore(std::string_view key);

  // Records an error of the caller's own (the first error wins).
  void fail(int status, std::string message);
  // Reports an invalid value with WSME's wording.
  void invalid(std::string_view key, std::string_view reason);

  bool ok() const { return !error_; }
  // The first error, or "Unknown attribute for argument member: foo" for a key nothing read.
  std::optional<ApiError> finish();

 private:
  const boost::json::value* get(std::string_view key);  // null pointer when absent
  std::string shown(std::string_view key) const;        // the value as the message quotes it

  const boost::json::object& object_;
  std::string argument_;
  std::set<std::string, std::less<>> known_;
  std::optional<ApiError> error_;
};

}  // namespace vigil::admin
