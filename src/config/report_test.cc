#include "config/report.h"

#include <gtest/gtest.h>

#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::load;

TEST(CheckReport, ValidConfig) {
  const LoadResult r = load(R"(
admin: {token_file: /etc/vigil/token}
listeners:
  - {name: api, bind: ":6443", pool: masters}
  - {name: etcd, bind: ":2379", pool: etcd}
pools:
  - name: masters
    health_monitor: {type: HTTPS, path: /readyz}
    members:
      - {name: m1, address: 10.0.0.1, port: 6443}
      - {name: m2, address: 10.0.0.2, port: 6443}
      - {name: m3, address: 10.0.0.3, port: 6443}
  - name: etcd
    members:
      - {name: e1, address: 10.0.0.1, port: 2379}
      - {name: e2, address: 10.0.0.2, port: 2379}
      - {name: e3, address: 10.0.0.3, port: 2379}
)");
  EXPECT_EQ(check_report(r),
            "vigil.yaml:12: warning: pool \"etcd\" has no health monitor: members are NO_MONITOR "
            "and a dead member stays in rotation; add health_monitor (e.g. type: HTTPS, path: "
            "/readyz)\n"
            "pool masters: 3 members, HTTPS GET /readyz every 5s; dead member out within 11.5s, "
            "recovered member back within 8.6s\n"
            "pool etcd: 3 members, no monitor\n"
            "OK: 2 listeners, 2 pools, 6 members (1 warning)\n");
}

TEST(CheckReport, MonitorKindsAndOptOut) {
  const LoadResult r = load(R"(
admin: {token_file: /t}
listeners:
  - {name: http, bind: ":80", pool: ingress}
  - {name: mcs, bind: ":22623", pool: mcs}
  - {name: raw, bind: ":9", pool: raw}
pools:
  - name: ingress
    health_monitor: {type: TCP, interval: 333ms}
    members: [{name: r1, address: 10.0.0.1, port: 80}]
  - name: mcs
    health_monitor: {type: HTTPS, path: /healthz, http_method: HEAD, interval: 10s}
    members: [{name: m1, address: 10.0.0.1, port: 22623}]
  - name: raw
    health_monitor: none
    members: [{name: x, address: 10.0.0.1, port: 9}]
)");
  EXPECT_EQ(check_report(r),
            // 366.3ms + 2 * max(366.3ms, 2s) + 2s and max(366.3ms, 2s) + 366.3ms + 2s, rounded up
            // to the millisecond.
            "pool ingress: 1 member, TCP every 333ms; dead member out within 6.367s, recovered "
            "member back within 4.367s\n"
            "pool mcs: 1 member, HTTPS HEAD /healthz every 10s; dead member out within 17s, "
            "recovered member back within 14.1s\n"
            "pool raw: 1 member, no monitor (health_monitor: none)\n"
            "OK: 3 listeners, 3 pools, 3 members\n");
}

TEST(CheckReport, Errors) {
  const LoadResult r = load("pools:\n  - name: p\n    retries: x\n    wieght: 1\n");
  EXPECT_EQ(check_report(r),
            "vigil.yaml:2: warning: pool \"p\" is not used by any listener\n"
            "vigil.yaml:3: error: pool.retries: expected an integer from 0 to 10, got \"x\"\n"
            "vigil.yaml:4: error: unknown key \"wieght\" in pool\n"
            "2 errors (1 warning)\n");
}

TEST(CheckReport, ControlCharactersAreNotPrinted) {
  const LoadResult r = load("listeners: [{name: a, bind: \":1\", pool: \"x\\e[31m\"}]\n");
  const std::string report = check_report(r);
  EXPECT_EQ(report.find('\x1b'), std::string::npos) << report;
  EXPECT_NE(report.find("pool \"x?[31m\""), std::string::npos) << report;
}

TEST(CheckReport, OneErrorNoConfig) {
  LoadResult r;
  r.diagnostics.push_back(make_error({.file = "x.yaml", .line = 0},
                                     "cannot read x.yaml: No such "
                                     "file or directory"));
  EXPECT_EQ(check_report(r),
            "x.yaml: error: cannot read x.yaml: No such file or directory\n"
            "1 error\n");
}

}  // namespace
}  // namespace vigil::config
