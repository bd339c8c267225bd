#include "admin/http.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace vigil::admin {

Response fault(int status, std::string_view message) {
  Response r;
  r.status = status;
  r.body = boost::json::serialize(boost::json::object{{"faultstring", message}});
  return r;
}

}  // namespace vigil::admin
