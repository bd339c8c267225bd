"""A small client of vigil's admin API: its Octavia v2 subset (/v2/lbaas/...) and /v1/status.

One instance per caller and thread (a requests.Session is not meant to be shared between
threads). Every call is bounded by [vigil] request_timeout.
"""
import requests
import urllib3

# The Octavia wrapper of each kind of object, and the collection it lives in.
COLLECTIONS = {
    "loadbalancer": "loadbalancers",
    "listener": "listeners",
    "pool": "pools",
    "healthmonitor": "healthmonitors",
}


class VigilError(Exception):
    """vigil refused a request (`status` is its HTTP status) or could not be reached (None).
    `maybe_applied`: no answer, but the request may have reached vigil (a read timeout, a
    connection lost after sending), so a write may have landed."""

    def __init__(self, status, message, maybe_applied=False):
        super().__init__(message)
        self.status = status
        self.message = message
        self.maybe_applied = maybe_applied


def _maybe_sent(error):
    """Whether a failed request may have reached vigil: only a connection never made (refused,
    or no connect within the timeout) surely did not."""
    if isinstance(error, requests.ConnectTimeout):
        return False
    if isinstance(error, requests.ReadTimeout):
        return True
    if not isinstance(error, requests.ConnectionError):
        return False  # a bad URL, too many redirects: nothing was sent
    for _ in range(10):
        if isinstance(error, urllib3.exceptions.NewConnectionError):
            return False
        nested = getattr(error, "reason", None) or error.__cause__ or error.__context__
        if nested is None and error.args and isinstance(error.args[0], BaseException):
            nested = error.args[0]
        if not isinstance(nested, BaseException):
            break
        error = nested
    return True


def _reason(error):
    """The innermost cause of a connection failure ("Connection refused"), not urllib3's story."""
    for _ in range(10):
        if isinstance(error, OSError) and error.strerror:
            return error.strerror
        if isinstance(error, requests.Timeout):
            return "timed out"
        nested = getattr(error, "reason", None) or error.__cause__ or error.__context__
        if nested is None and error.args and isinstance(error.args[0], BaseException):
            nested = error.args[0]
        if not isinstance(nested, BaseException):
            break
        error = nested
    return str(error)


class VigilClient:
    def __init__(self, endpoint, token_file, timeout):
        self.endpoint = endpoint.rstrip("/")
        self.token_file = token_file
        self.timeout = timeout
        self.session = requests.Session()
        # vigil's admin API is on the host or the cloud's management network: never through a
        # proxy from the environment.
        self.session.trust_env = False

    def _token(self):
        try:
            with open(self.token_file, encoding="utf-8") as f:
                return f.read().strip()
        except OSError as e:
            raise VigilError(None, f"cannot read vigil's token file {self.token_file}: "
                                   f"{e.strerror}") from e

    def request(self, method, path, body=None):
        """Returns the answer's JSON (None when empty); raises VigilError otherwise."""
        url = self.endpoint + path
        try:
            r = self.session.request(method, url, json=body, timeout=self.timeout,
                                     headers={"X-Auth-Token": self._token()})
        except requests.RequestException as e:
            raise VigilError(None, f"cannot reach vigil at {self.endpoint}: {_reason(e)}",
                             maybe_applied=_maybe_sent(e)) from e
        if r.status_code >= 400:
            try:
                fault = r.json().get("faultstring") or r.text
            except ValueError:
                fault = r.text.strip() or r.reason
            raise VigilError(r.status_code, f"vigil answered {r.status_code} to {method} {path}: "
                                            f"{fault}")
        return r.json() if r.content else None

    @staticmethod
    def path(kind, object_id=None, pool_id=None):
        if kind == "member":
            base = f"/v2/lbaas/pools/{pool_id}/members"
        else:
            base = f"/v2/lbaas/{COLLECTIONS[kind]}"
        return base if object_id is None else f"{base}/{object_id}"

    def create(self, kind, fields, pool_id=None):
        return self.request("POST", self.path(kind, pool_id=pool_id), {kind: fields})[kind]

    def update(self, kind, object_id, fields, pool_id=None):
        return self.request("PUT", self.path(kind, object_id, pool_id), {kind: fields})[kind]

    def delete(self, kind, object_id, pool_id=None, cascade=False):
        """Deletes; an object vigil does not have is already deleted."""
        path = self.path(kind, object_id, pool_id) + ("?cascade=true" if cascade else "")
        try:
            self.request("DELETE", path)
        except VigilError as e:
            if e.status != 404:
                raise

    def get(self, kind, object_id, pool_id=None):
        """The object, or None when vigil does not have it."""
        try:
            return self.request("GET", self.path(kind, object_id, pool_id))[kind]
        except VigilError as e:
            if e.status == 404:
                return None
            raise

    def members(self, pool_id):
        """Every member of the pool: without a limit vigil pages at Octavia's 1,000."""
        path = self.path("member", pool_id=pool_id) + "?limit=infinite"
        return self.request("GET", path)["members"]

    def status(self):
        """vigil's /v1/status: every load balancer with its statuses."""
        return self.request("GET", "/v1/status")
