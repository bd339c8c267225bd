#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/haproxy_convert.h"
#include "config/haproxy_loader.h"
#include "config/report.h"

namespace vigil::config {
namespace {

std::string read(const std::string& name) {
  std::ifstream in(std::string(VIGIL_SOURCE_DIR) + "/src/config/testdata/haproxy/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Debug, Print) {
  for (const char* f : {"kubeadm-ha.cfg", "kubeadm-ha-http-check.cfg", "openshift-upi.cfg",
                        "openshift-onprem.cfg", "openshift-installer-vsphere.cfg",
                        "octavia-amphora.cfg", "octavia-seed-no-monitor.cfg",
                        "octavia-seed-tls-hello.cfg", "openshift-article-ssl-hello.cfg",
                        "openshift-article-readyz.cfg"}) {
    const LoadResult r = load_haproxy_cfg(read(f), f);
    std::cout << "===== " << f << "\n" << check_report(r) << convert_report(r);
  }
}

}  // namespace
}  // namespace vigil::config
