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

}  // namespace vigil::admin
