// The Kubernetes objects the simulator answers with, as Boost.JSON values. Pure functions of their
// arguments and the wall clock; callable from any thread.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "testing/apisim/endpoint_slices.h"

namespace vigil::apisim {

// metav1.Status, e.g. status_object(404, "NotFound", "the server could not find ...").
boost::json::value status_object(int code, std::string_view reason, std::string_view message);

// A control-plane Node that is Ready. with_type_meta: kind/apiVersion (omitted in list items).
boost::json::value node_object(std::string_view name, std::uint64_t resource_version,
                               bool with_type_meta = true);
boost::json::value node_list(const std::vector<std::string>& names, std::uint64_t resource_version);
// One line of a watch stream: {"type":TYPE,"object":NODE}.
std::string watch_event(std::string_view type, std::string_view name,
                        std::uint64_t resource_version);

// An EndpointSlice of default/kubernetes (discovery.k8s.io/v1), as the apiserver's reconciler
// writes it; with_type_meta as for nodes.
boost::json::value endpoint_slice_object(const Slice& slice, bool with_type_meta = true);
boost::json::value endpoint_slice_list(const std::vector<Slice>& slices,
                                       std::uint64_t resource_version);
// Watch lines: an event of a slice; a BOOKMARK (kind, apiVersion and resourceVersion only); the
// ERROR with a 410 Expired Status that a watch from a forgotten resourceVersion gets.
std::string endpoint_slice_event(const SliceEvent& event);
std::string endpoint_slice_bookmark(std::uint64_t resource_version);
std::string expired_event(std::uint64_t requested, std::uint64_t oldest);

boost::json::value version_object();
boost::json::value api_versions(std::string_view server_address);
boost::json::value api_group_list();
boost::json::value core_v1_resources();
boost::json::value discovery_v1_resources();

}  // namespace vigil::apisim
