"""differential.py on its own: what is normalised, how answers are compared, and how the list of
deliberate differences matches (no Octavia, no vigil)."""
import json

import pytest

pytest.importorskip("yaml")

from differential import (ABSENT, Answer, Deliberate, Labels, check,  # noqa: E402
                          differences, load_deliberate)

POOL = "6b0e8a7e-1d2c-4b5a-9f8e-7d6c5b4a3f21"
OTHER = "0f1e2d3c-4b5a-4978-8a9b-0c1d2e3f4a5b"


def answer(out, stderr="", rc=0):
    labels = Labels()
    labels.add(POOL, "pool:masters")
    labels.add_port(6443, "port:api")
    return Answer.of({"rc": rc, "stdout": json.dumps(out) if out is not None else "",
                      "stderr": stderr}, labels)


def test_ids_ports_times_and_request_ids_are_normalised():
    a = answer({"id": POOL, "vip_port_id": OTHER, "protocol_port": 6443,
                "created_at": "2024-05-01T12:00:00.123456", "updated_at": "2024-05-01T12:00:00",
                "description": f"pool {POOL} on 6443, not 16443"},
               stderr=f"No such thing (HTTP 404) (Request-ID: req-{OTHER})", rc=1)
    assert a.stdout == {"id": "<pool:masters>", "vip_port_id": "<uuid>",
                        "protocol_port": "<port:api>", "created_at": "<time>",
                        "updated_at": "<time>",
                        "description": "pool <pool:masters> on <port:api>, not 16443"}
    assert a.stderr == "No such thing (HTTP 404)" and a.request_id == "req-<uuid>"


def test_the_values_of_an_enums_error_are_sorted():
    text = "Invalid input for field/attribute type. Value: 'X'. Value should be one of: TCP, HTTP"
    assert answer({"faultstring": text}).stdout["faultstring"].endswith("one of: HTTP, TCP")
    assert answer(None, text + " (HTTP 400)", rc=1).stderr.endswith("HTTP, TCP (HTTP 400)")


def test_a_time_in_another_form_is_kept():
    assert answer({"created_at": "2024-05-01 12:00:00+00:00"}).stdout["created_at"] == \
        "2024-05-01 12:00:00+00:00"


def test_id_lists_in_a_show_are_sets():
    a, b = answer({"members": f"{POOL}\n{OTHER}"}), answer({"members": f"{OTHER}\n{POOL}"})
    assert differences("s", a, b) == []


def test_an_object_only_one_side_has_is_one_difference():
    a = answer({"pool": {"hm": {"id": "x", "type": "TCP"}}, "n": 1})
    b = answer({"pool": {"healthmonitor": {"id": "x"}}, "n": 1})
    found = {d.path: (d.octavia, d.vigil) for d in differences("s", a, b)}
    assert found == {"out.pool.hm": ({"id": "x", "type": "TCP"}, ABSENT),
                     "out.pool.healthmonitor": (ABSENT, {"id": "x"})}


def test_lists_by_id_and_their_order():
    a = answer([{"id": POOL, "name": "a"}, {"id": OTHER, "name": "b"}])
    b = answer([{"id": OTHER, "name": "b"}, {"id": POOL, "name": "A"}])
    found = {d.path: (d.octavia, d.vigil) for d in differences("s", a, b)}
    assert found == {"out[order]": (["<pool:masters>", "<uuid>"], ["<uuid>", "<pool:masters>"]),
                     "out[<pool:masters>].name": ("a", "A")}


def test_output_on_one_side_only_is_one_difference():
    found = differences("s", answer(None, "refused (HTTP 400)", rc=1), answer({"id": POOL}))
    assert {d.path for d in found} == {"exit_code", "stderr", "out"}


def test_entries_match_by_pattern_and_value():
    entry = Deliberate(["* create*"], "out.*_status", "PENDING_CREATE", "ACTIVE", "why")
    a, b = answer({"provisioning_status": "PENDING_CREATE"}), answer(
        {"provisioning_status": "ACTIVE"})
    (d,) = differences("pool create", a, b)
    assert entry.matches(d)
    assert not entry.matches(differences("pool show", a, b)[0])
    assert not Deliberate(["*"], "out.*", "PENDING_UPDATE", "ACTIVE", "why").matches(d)
    assert Deliberate(["*"], "out.provisioning_status", "<any>", "ACTIVE", "why").matches(d)
    # Brackets in a path are literal, not a character class.
    (item,) = [x for x in differences("s", answer([]), answer([{"id": POOL}]))
               if x.path != "out[order]"]
    assert Deliberate(["s"], "out[<pool:masters>]", ABSENT, "<any>", "why").matches(item)


def test_check_reports_the_unexplained_and_the_stale():
    d = differences("s", answer({"a": 1, "b": 1}), answer({"a": 2, "b": 2}))
    listed = Deliberate(["s"], "out.a", 1, 2, "why")
    stale = Deliberate(["s"], "out.c", 1, 2, "why")
    fixed = Deliberate(["s"], "out.d", 1, 2, "a bug", known_bug=True)
    unexplained, unused = check(d, [listed, stale, fixed])
    assert [x.path for x in unexplained] == ["out.b"]
    assert unused == [stale]  # a known bug may stop occurring


def test_the_list_loads_and_names_what_is_wrong(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("- {steps: s, path: out.a, octavia: 1, vigil: 2, reason: why}\n")
    assert load_deliberate(good)[0].steps == ["s"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {steps: s, path: out.a, octavia: 1, vigil: 2}\n")
    with pytest.raises(AssertionError, match="entry 1 lacks"):
        load_deliberate(bad)
