"""Behind a reverse proxy: the Octavia API's absolute links follow Forwarded / X-Forwarded-*
only when admin.trust_forwarded_headers says the proxy is trusted (as Octavia's
`[oslo_middleware] enable_proxy_headers_parsing`), and admin.octavia_endpoint wins over both.
"""
import json

from testing.harness.octavia_api import CONFIG, raw
from testing.harness.vigil_process import Vigil

PROXIED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "cloud.example",
           "X-Forwarded-Prefix": "/load-balancer"}


def version_link(vigil, headers):
    """The `self` link of the version document keystoneauth reads from `/`."""
    code, text = vigil.get("/", token=None, headers={"Accept": "application/json", **headers})
    assert code == 200, text
    return json.loads(text)["versions"][0]["links"][0]["href"]


def test_forwarded_headers_count_only_when_trusted(tmp_path, cleanup):
    config = CONFIG.format(state_file=tmp_path / "state.json")
    vigil = Vigil(tmp_path, config)
    cleanup(vigil)
    own = f"http://{vigil.admin}/v2"
    # Off by default: any client may send these headers.
    assert version_link(vigil, PROXIED) == own

    vigil.config.write_text(vigil.config.read_text() + "  trust_forwarded_headers: true\n")
    code, body = raw(vigil, "POST", "/v1/reload")
    assert code == 200, body
    assert version_link(vigil, PROXIED) == "https://cloud.example/load-balancer/v2"
    # RFC 7239's header wins over the X-Forwarded ones; its first element is the client's side.
    assert version_link(vigil, {**PROXIED, "Forwarded": 'for=192.0.2.1;proto=https;host="lb.example:8443", '
                                                     "for=10.0.0.1;proto=http"}) \
        == "https://lb.example:8443/load-balancer/v2"
    # Headers that would make no http(s) URL are left out.
    assert version_link(vigil, {"X-Forwarded-Host": "evil.example/x"}) == own
    assert version_link(vigil, {}) == own

    # The configured endpoint, as Octavia's api_base_uri, wins over any header.
    vigil.config.write_text(vigil.config.read_text() + "  octavia_endpoint: https://api.example/lb\n")
    code, body = raw(vigil, "POST", "/v1/reload")
    assert code == 200, body
    assert version_link(vigil, PROXIED) == "https://api.example/lb/v2"
