#include "daemon/announced_reload.h"

#include <string>

#include "daemon/control_plane.h"
#include "daemon/service_notify.h"

namespace vigil::daemon {

Result<std::vector<std::string>> announced_reload(ControlPlane& control) {
  service::reloading();
  // reload() logs its own errors; the running configuration stays on error.
  auto reloaded = control.reload();
  if (reloaded) {
    service::ready("serving; reloaded");
  } else {
    const std::string& why = reloaded.error().message;
    service::ready("serving the previous configuration; reload refused: " +
                   why.substr(0, why.find('\n')));
  }
  return reloaded;
}

}  // namespace vigil::daemon
