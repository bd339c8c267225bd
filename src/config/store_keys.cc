// `admin.store`: where the objects made through the Octavia API live, this node's state file or
// an etcd cluster that every node of a pair or fleet shares (docs/ha.md, "One API").
#include <boost/url/parse.hpp>

#include "config/suggest.h"
#include "config/yaml_keys.h"

namespace vigil::config {
namespace {

using model::Store;
using model::StoreTls;
using model::StoreType;

constexpr model::NameList kStoreTypeChoices = model::name_list<StoreType>(", ", " or ");
constexpr model::NameList kStoreTypeDocs = model::name_list<StoreType>(" | ", " | ");

void read_type(YamlReader& r, const Field& f, Store& s) {
  auto text = r.scalar(f, kStoreTypeChoices);
  if (!text) return;
  if (auto type = model::parse<StoreType>(*text)) {
    s.type = *type;
    return;
  }
  r.error(f.line, f.path() + ": unknown store type " + YamlReader::describe(f.value) + "; use " +
                      std::string(kStoreTypeChoices.view()) +
                      did_you_mean(*text, model::names_of(model::spellings<StoreType>())));
}

// An etcd client URL: http:// or https://, a host and a port, nothing else (etcd's
// --advertise-client-urls form).
void read_endpoints(YamlReader& r, const Field& f, Store& s) {
  if (!r.expect_list(f, "a list of etcd URLs, like [https://10.0.0.5:2379]")) return;
  for (const YamlNode& item : f.value.items()) {
    const int line = YamlReader::line_of(item, f.line);
    if (!item.is_scalar()) {
      r.error(line, f.path() + ": expected an etcd URL, got " + YamlReader::describe(item));
      continue;
    }
    const std::string text(item.scalar());
    const auto url = boost::urls::parse_absolute_uri(text);
    if (!url || (url->scheme() != "http" && url->scheme() != "https") || !url->has_authority() ||
        url->host().empty() || !url->has_port() || url->port_number() == 0 ||
        !(url->path().empty() || url->path() == "/") || url->has_query() || url->has_fragment() ||
        url->has_userinfo()) {
      r.error(line, f.path() + ": \"" + text +
                        "\" is no etcd client URL; use http:// or https://, a host and a port, "
                        "as etcd's --advertise-client-urls (https://10.0.0.5:2379)");
      continue;
    }
    s.endpoints.push_back(text);
  }
  if (f.value.items().empty()) r.error(f.line, f.path() + ": empty; name etcd's client URLs");
}

void read_prefix(YamlReader& r, const Field& f, Store& s) {
  auto text = r.scalar(f, "a key prefix, like /vigil/");
  if (!text) return;
  if (text->empty() || !text->ends_with('/')) {
    return r.error(f.line, f.path() + ": \"" + *text +
                               "\" must end with \"/\", so that no other prefix starts with it "
                               "(/vigil/ and /vigil-test/ are apart; /vigil and /vigil-test are "
                               "not)");
  }
  s.prefix = *text;
}

constexpr KeySpec<StoreTls> kStoreTlsKeys[] = {
    {"ca", "path", "the system's CAs",
     "The CA (PEM) that signed etcd's server certificates (etcd's --trusted-ca-file); the "
     "endpoint's host must be named in them.",
     [](YamlReader& r, const Field& f, StoreTls& t) { r.set_string(f, t.ca); }},
    {"cert", "path", "",
     "This node's client certificate (PEM), when etcd asks for one (--client-cert-auth).",
     [](YamlReader& r, const Field& f, StoreTls& t) { r.set_string(f, t.cert); }},
    {"key", "path", "", "The client certificate's private key (PEM).",
     [](YamlReader& r, const Field& f, StoreTls& t) { r.set_string(f, t.key); }},
};

constexpr KeySpec<Store> kStoreKeys[] = {
    {"type", kStoreTypeDocs, model::to_string(StoreType::kFile),
     "`file`: the objects live in this node's `admin.state_file`, and only this node serves "
     "them. `etcd`: they live in etcd under `prefix`, every node that names the same etcd and "
     "prefix serves them, and a write is answered once etcd has committed it; `state_file` is "
     "then this node's cache of them, served while etcd is unreachable (docs/ha.md).",
     read_type},
    {"endpoints", "list of URLs", "", "etcd's client URLs (`type: etcd`), tried in turn.",
     read_endpoints},
    {"prefix", "text ending in /", "/vigil/",
     "Every key vigil keeps in etcd starts with it: one prefix per group of nodes that share "
     "their objects.",
     read_prefix},
    {"tls", "map", "", "TLS towards etcd (https:// endpoints); see `admin.store.tls`.",
     [](YamlReader& r, const Field& f, Store& s) {
       r.read_map(f.value, f.line, store_tls_section(), s.tls);
     }},
    {"timeout", "duration", "2s",
     "How long one request to etcd may take, connect included, before the next endpoint is "
     "tried; a write that etcd has not committed by then is answered 503.",
     [](YamlReader& r, const Field& f, Store& s) {
       r.set_duration(f, s.timeout, std::chrono::minutes(1));
     }},
    {"readyz", "boolean", "false",
     "Whether `/readyz` (and so `vigil health`, keepalived and the BGP health loop) also requires "
     "this node to follow etcd: a node cut off from etcd then gives its address or route away. "
     "Off by default, since the data plane serves without etcd, and an outage of etcd itself "
     "would take every node out at once.",
     [](YamlReader& r, const Field& f, Store& s) { r.set_bool(f, s.readyz); }},
};

}  // namespace

void read_store(YamlReader& r, const Field& f, model::Admin& a) {
  Store store{.where = r.at(f.line)};
  if (!r.read_map(f.value, f.line, store_section(), store)) return;
  const bool etcd = store.type == StoreType::kEtcd;
  if (etcd && store.endpoints.empty()) {
    r.error(f.line, f.path() + ": type etcd needs `endpoints`, etcd's client URLs");
  }
  if (!etcd && (!store.endpoints.empty() || store.tls != StoreTls{})) {
    r.error(f.line, f.path() + ": `endpoints` and `tls` are for type etcd; add `type: etcd`");
  }
  if (store.tls.cert.empty() != store.tls.key.empty()) {
    r.error(f.line, f.path() + ".tls: `cert` and `key` go together");
  }
  a.store = std::move(store);
}

const Section<Store>& store_section() {
  static constexpr Section<Store> kSection{"admin.store", "admin.store", kStoreKeys};
  return kSection;
}

const Section<StoreTls>& store_tls_section() {
  static constexpr Section<StoreTls> kSection{"admin.store.tls", "admin.store.tls", kStoreTlsKeys};
  return kSection;
}

}  // namespace vigil::config
