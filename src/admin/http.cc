#include "admin/http.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace vigil::admin {

Response fault(int status, std::string_view message) {
  Response r;
  r.status = status;
  // WSME's whole error body, as Octavia answers it.
  r.body = boost::json::serialize(boost::json::object{
      {"faultcode", status >= 500 ? "Server" : "Client"},
      {"faultstring", message},
      {"debuginfo", nullptr},
  });
  return r;
}

std::string whole_body(Response& r) {
  std::string out = std::move(r.body);
  if (r.stream) {
    for (std::string piece = r.stream(); !piece.empty(); piece = r.stream()) out += piece;
    r.stream = nullptr;
  }
  return out;
}

Response framework_fault(int status, std::string_view title, std::string_view description) {
  Response r;
  r.status = status;
  r.body = boost::json::serialize(boost::json::object{
      {"code", status},
      {"title", title},
      {"description", description},
  });
  return r;
}

}  // namespace vigil::admin
