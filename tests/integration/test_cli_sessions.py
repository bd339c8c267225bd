"""`vigil sessions` and `vigil sessions kill` against a running vigil with two echo members: the
table lists each held connection by its client address, the filters narrow it, --json is the
daemon's document, and kill closes the member's sessions. Every wait is bounded."""
import json

from test_sessions import start
from testing.harness.vigil_process import closed_by_peer, hold
from testing.harness.wait import wait_for


def rows(table):
    """The table's data rows as lists of cells (the header row left out)."""
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[1:]]


def test_sessions_lists_filters_and_kills(tmp_path, cleanup):
    vigil, _, _ = start(tmp_path, cleanup)
    held = [hold(vigil, b"hello"), hold(vigil, b"world")]
    by_client = {"%s:%d" % s.getsockname(): s for s in held}
    try:
        listed = wait_for(lambda: (r := vigil.cli("sessions")).returncode == 0
                          and len(rows(r.stdout)) == 2 and r, what="two sessions in the table")
        assert listed.stdout.endswith("2 sessions\n"), listed.stdout
        table = {row[0]: row for row in rows(listed.stdout)}
        assert set(table) == set(by_client)
        assert all(row[1] == "api" and row[2] == "masters" for row in table.values())
        member_of = {client: row[3] for client, row in table.items()}
        assert set(member_of.values()) <= {"master-01", "master-02"}

        doc = vigil.cli("sessions", "--json")
        assert doc.returncode == 0, doc.stderr
        parsed = json.loads(doc.stdout)
        assert parsed["total"] == 2 and parsed["truncated"] is False
        assert {s["client"]: s["member"] for s in parsed["sessions"]} == member_of

        # The first session's member: its sessions alone, then closed.
        target = next(iter(member_of.values()))
        mine = sorted(c for c, m in member_of.items() if m == target)
        one = vigil.cli("sessions", "--member", target, "--pool", "masters")
        assert one.returncode == 0, one.stderr
        assert sorted(row[0] for row in rows(one.stdout)) == mine

        unknown = vigil.cli("sessions", "--member", "master-09")
        assert unknown.returncode == 1 and "master-09" in unknown.stderr, unknown.stderr

        killed = vigil.cli("sessions", "kill", "--member", target)
        assert killed.returncode == 0, killed.stderr
        plural = "" if len(mine) == 1 else "s"
        assert killed.stdout == f"closed {len(mine)} session{plural} of member {target}\n"
        for client in mine:
            by_client[client].settimeout(5)
            assert closed_by_peer(by_client[client])
        others = sorted(c for c in member_of if c not in mine)
        wait_for(lambda: (r := vigil.cli("sessions")).returncode == 0
                 and sorted(row[0] for row in rows(r.stdout)) == others,
                 what="only the other member's sessions left")
    finally:
        for s in held:
            s.close()
