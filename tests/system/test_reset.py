"""Reset at once: master-01 resets every new connection as soon as it is accepted (apisim
`POST /sim/fault?mode=reset`, sent on a connection opened before); connections it accepted
before, vigil's kept check connection among them, are still served. After 20 s it is killed and
a new one starts with a 10 s warm-up. No client request fails or takes
over 1.5 s (a reset before the first byte sends the ClientHello to another master), the watch is
streaming again within 3 s, kubectl never fails, and vigil shows master-01 ERROR with its reason
(the check on a new connection is reset too), then ONLINE once it is ready.
"""
from system_checks import requires_netns, run_vigil_scenario

pytestmark = requires_netns


def test_reset(netns, tmp_path):
    run_vigil_scenario(netns, tmp_path, "reset")
