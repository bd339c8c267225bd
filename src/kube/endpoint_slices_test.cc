// EndpointSlices as kube-apiserver serves them for default/kubernetes, and what vigil makes of
// them, including the answers a broken or hostile server could send.
#include "kube/endpoint_slices.h"

#include <gtest/gtest.h>

namespace vigil::kube {
namespace {

// As `kubectl get --raw '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices'` shows a
// three-master cluster's (kube-apiserver's own reconciler writes this slice).
constexpr std::string_view kList = R"({
  "kind": "EndpointSliceList", "apiVersion": "discovery.k8s.io/v1",
  "metadata": {"resourceVersion": "4711"},
  "items": [{
    "metadata": {"name": "kubernetes", "namespace": "default", "resourceVersion": "200",
                 "labels": {"kubernetes.io/service-name": "kubernetes",
                            "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
    "addressType": "IPv4",
    "endpoints": [
      {"addresses": ["10.0.0.12"], "conditions": {"ready": true}},
      {"addresses": ["10.0.0.11"], "conditions": {"ready": true}},
      {"addresses": ["10.0.0.13"], "conditions": {"ready": false}},
      {"addresses": ["10.0.0.14"]}
    ],
    "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]
  }]
})";

TEST(EndpointSlices, AListGivesTheReadyEndpointsOfTheNamedPort) {
  auto list = parse_slice_list(kList, "https");
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->resource_version, "4711");
  ASSERT_EQ(list->slices.size(), 1u);
  const std::vector<Endpoint> want = {{"10.0.0.11", 6443, true},
                                      {"10.0.0.12", 6443, true},
                                      {"10.0.0.14", 6443, true}};  // no conditions: ready
  EXPECT_EQ(ready_endpoints(list->slices), want);
}

TEST(EndpointSlices, APortIsFoundByNumberToo) {
  auto list = parse_slice_list(kList, "6443");
  ASSERT_TRUE(list);
  EXPECT_EQ(ready_endpoints(list->slices).size(), 3u);
  auto none = parse_slice_list(kList, "http");  // a port the slice does not have
  ASSERT_TRUE(none);
  EXPECT_TRUE(ready_endpoints(none->slices).empty());
}

TEST(EndpointSlices, WatchEventsChangeTheSlicesKnown) {
  auto list = parse_slice_list(kList, "https");
  ASSERT_TRUE(list);
  auto slices = list->slices;
  auto modified = parse_watch_event(
      R"({"type":"MODIFIED","object":{"kind":"EndpointSlice","metadata":{"name":"kubernetes",
          "resourceVersion":"4712"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.15"],
          "conditions":{"ready":true}}],"ports":[{"name":"https","port":6443,"protocol":"TCP"}]}})",
      "https");
  ASSERT_TRUE(modified) << modified.error().message;
  EXPECT_EQ(modified->type, WatchEvent::Type::kModified);
  EXPECT_EQ(modified->resource_version, "4712");
  apply_event(slices, *modified);
  EXPECT_EQ(ready_endpoints(slices), (std::vector<Endpoint>{{"10.0.0.15", 6443, true}}));
  // A second slice, IPv6, then the first one deleted.
  auto added = parse_watch_event(
      R"({"type":"ADDED","object":{"metadata":{"name":"kubernetes-v6","resourceVersion":"4713"},
          "addressType":"IPv6","endpoints":[{"addresses":["fd00::11"]}],
          "ports":[{"name":"https","port":6443}]}})",
      "https");
  ASSERT_TRUE(added) << added.error().message;
  apply_event(slices, *added);
  auto deleted = parse_watch_event(
      R"({"type":"DELETED","object":{"metadata":{"name":"kubernetes","resourceVersion":"4714"},
          "addressType":"IPv4"}})",
      "https");
  ASSERT_TRUE(deleted) << deleted.error().message;
  apply_event(slices, *deleted);
  EXPECT_EQ(ready_endpoints(slices), (std::vector<Endpoint>{{"fd00::11", 6443, true}}));
}

TEST(EndpointSlices, BookmarksAndExpiryAreTold) {
  auto bookmark = parse_watch_event(
      R"({"type":"BOOKMARK","object":{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1",
          "metadata":{"resourceVersion":"5000"}}})",
      "https");
  ASSERT_TRUE(bookmark);
  EXPECT_EQ(bookmark->type, WatchEvent::Type::kBookmark);
  EXPECT_EQ(bookmark->resource_version, "5000");
  // kube-apiserver's answer to a watch from a compacted version.
  auto gone = parse_watch_event(
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},
          "status":"Failure","message":"too old resource version: 5 (4711)","reason":"Expired",
          "code":410}})json",
      "https");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->type, WatchEvent::Type::kError);
  EXPECT_EQ(gone->code, 410);
  EXPECT_EQ(gone->message, "too old resource version: 5 (4711)");
}

TEST(EndpointSlices, GarbageIsAnErrorNeverACrash) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case lists[] = {
      {"", "is not JSON"},
      {"[1,2]", "is not a JSON object"},
      {R"({"kind":"Status","code":403})", "a \"Status\", not an EndpointSliceList"},
      {R"({"kind":"EndpointSliceList","items":{}})", "items are not a list"},
      {R"({"kind":"EndpointSliceList","items":[7]})", "an EndpointSlice is not an object"},
      {R"({"kind":"EndpointSliceList","items":[{"metadata":{}}]})", "has no metadata.name"},
      {R"({"kind":"EndpointSliceList","items":[{"metadata":{"name":"k"},"addressType":"IPv4",
          "ports":[{"name":"https","port":6443}],"endpoints":[{"addresses":["not-an-ip"]}]}]})",
       "\"not-an-ip\" is not an IPv4 address"},
      {R"({"kind":"EndpointSliceList","items":[{"metadata":{"name":"k"},"addressType":"IPv4",
          "ports":[{"name":"https","port":6443}],"endpoints":[{"addresses":["fd00::1"]}]}]})",
       "\"fd00::1\" is not an IPv4 address"},
      {R"({"kind":"EndpointSliceList","items":[{"metadata":{"name":"k"},"addressType":"IPv4",
          "ports":[{"name":"https","port":6443}],"endpoints":[{"conditions":{}}]}]})",
       "an endpoint has no addresses"},
      {R"({"kind":"EndpointSliceList","items":[{"metadata":{"name":"k"},"addressType":"IPv4",
          "ports":"https"}]})",
       "\"ports\" is not a list"},
  };
  for (const Case& c : lists) {
    auto r = parse_slice_list(c.text, "https");
    ASSERT_FALSE(r) << c.text;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos) << r.error().message;
  }
  for (const char* line : {"{}", R"({"type":"MODIFIED"})", R"({"type":"RESYNC","object":{}})",
                           R"({"type":"ADDED","object":{"metadata":{}}})"}) {
    EXPECT_FALSE(parse_watch_event(line, "https")) << line;
  }
}

TEST(EndpointSlices, PortsWithoutANumberAndFqdnSlicesGiveNothing) {
  auto list = parse_slice_list(
      R"({"kind":"EndpointSliceList","items":[
          {"metadata":{"name":"a"},"addressType":"IPv4","ports":[{"name":"https"}],
           "endpoints":[{"addresses":["10.0.0.1"]}]},
          {"metadata":{"name":"b"},"addressType":"FQDN","ports":[{"name":"https","port":1}],
           "endpoints":[{"addresses":["api.example"]}]},
          {"metadata":{"name":"c"},"addressType":"IPv4","ports":[{"name":"https","port":70000}],
           "endpoints":[{"addresses":["10.0.0.2"]}]}]})",
      "https");
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_TRUE(ready_endpoints(list->slices).empty());
}

TEST(EndpointSlices, TargetsSelectTheServicesSlices) {
  EXPECT_EQ(list_target("default", "kubernetes"),
            "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector="
            "kubernetes.io%2Fservice-name%3Dkubernetes");
  EXPECT_EQ(watch_target("default", "kubernetes", "4711", 300),
            "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector="
            "kubernetes.io%2Fservice-name%3Dkubernetes&watch=true&allowWatchBookmarks=true&"
            "resourceVersion=4711&timeoutSeconds=300");
}

}  // namespace
}  // namespace vigil::kube
