"""Comparing two answers to the same CLI step, the real Octavia's and vigil's, field by field,
and the list of differences that are deliberate (deliberate_differences.yaml).

What is meant to differ is normalised, and nothing else:
- an id one side created (or vigil's own subnet and network) becomes its label, e.g.
  `<pool:masters>`, wherever it appears, also inside text; any other UUID becomes `<uuid>`
  (request ids, ports the noop network driver invents);
- a port the kernel picked for this run (the listener's, the members') becomes its label, e.g.
  `<port:api>`, as a `protocol_port` and inside text;
- the values an enum's error lists (`Value should be one of: A, B`), which Octavia's WSME takes
  from a Python set, in an order that changes with each process, are sorted;
- `created_at` and `updated_at` in Octavia's form (`2024-05-01T12:00:00`, with microseconds
  where the database keeps them, as SQLite does and MySQL does not) become `<time>`.
The request id the CLI appends to an error, `(Request-ID: req-…)`, is taken out of the text
and compared as a field of its own, `request_id`.
Lists of objects are compared by id, and the order of a list the CLI prints as one more field,
`[order]`; inside an object, lists of ids (a pool's `members`, which the CLI prints one per line)
are compared as sets: Octavia orders them by their random ids. A field one side lacks is
`<absent>`.

Holds no tests.
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ABSENT = "<absent>"
ANY = "<any>"  # in an entry of the list: whatever the value
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?")
REQUEST_ID = re.compile(r" \(Request-ID: ([^)]*)\)")
ONE_OF = re.compile(r"(Value should be one of: )(.*?)(?= \(HTTP \d+\)|$)")
TIME_FIELDS = {"created_at", "updated_at"}
ID_LISTS = {"listeners", "pools", "members", "loadbalancers"}


class Labels:
    """One side's ids and their labels."""

    def __init__(self):
        self.labels = {}
        self.ports = {}

    def add(self, object_id, label):
        self.labels[object_id] = f"<{label}>"

    def add_port(self, port, label):
        self.ports[int(port)] = f"<{label}>"

    def text(self, s):
        s = UUID.sub(lambda m: self.labels.get(m.group(0), "<uuid>"), s)
        s = ONE_OF.sub(lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))), s)
        for port, label in self.ports.items():
            s = re.sub(rf"(?<!\d){port}(?!\d)", label, s)
        return s


def normalise(value, labels, key=None):
    if isinstance(value, dict):
        return {k: normalise(v, labels, k) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, labels) for v in value]
    if isinstance(value, str):
        if key in TIME_FIELDS and TIME.fullmatch(value):
            return "<time>"
        if key in ID_LISTS:
            return "\n".join(sorted(labels.text(value).split("\n")))
        return labels.text(value)
    if key == "protocol_port" and isinstance(value, int):
        return labels.ports.get(value, value)
    return value


def flatten(value, path="", nodes=None):
    """{path: scalar} of a normalised answer, lists of objects with ids keyed by id; `nodes`
    gets {path: value} of every object in it."""
    if isinstance(value, dict):
        out = {}
        if nodes is not None and path:
            nodes[path] = value
        for k, v in value.items():
            out.update(flatten(v, f"{path}.{k}" if path else k, nodes))
        return out
    if not path and isinstance(value, list) or isinstance(value, list) and value and all(
            isinstance(v, dict) and "id" in v for v in value):
        out = {} if path else {"[order]": [v["id"] for v in value]}
        for v in value:
            out.update(flatten(v, f"{path}[{v['id']}]", nodes))
        return out
    return {path or ".": value}


@dataclass(frozen=True)
class Difference:
    step: str
    path: str
    octavia: object
    vigil: object

    def __str__(self):
        return (f"{self.step}: {self.path}: octavia {json.dumps(self.octavia)}, "
                f"vigil {json.dumps(self.vigil)}")


@dataclass
class Answer:
    """One side's answer to one step: exit code, output (JSON when it parses), error text."""
    rc: int
    stdout: object
    stderr: str
    request_id: str = None

    @classmethod
    def of(cls, done, labels):
        try:
            out = json.loads(done["stdout"]) if done["stdout"].strip() else None
        except ValueError:
            out = done["stdout"]
        stderr = labels.text(done["stderr"].strip())
        request_ids = REQUEST_ID.findall(stderr)
        return cls(done["rc"], normalise(out, labels), REQUEST_ID.sub("", stderr),
                   request_ids[-1] if request_ids else None)

    def fields(self):
        """({path: value}, {path: object}) of this answer, paths starting at `out`."""
        fields, nodes = {"exit_code": self.rc, "stderr": self.stderr}, {}
        if self.request_id is not None:
            fields["request_id"] = self.request_id

        def at(k):
            return "out" if k == "." else f"out{k}" if k[0] == "[" else f"out.{k}"
        if isinstance(self.stdout, (dict, list)):
            found = {}
            for k, v in flatten(self.stdout, "", found).items():
                fields[at(k)] = v
            nodes = {at(k): v for k, v in found.items()}
        else:
            fields["out"] = self.stdout
        return fields, nodes


def differences(step, octavia, vigil):
    """The fields whose values differ; an object only one side has is one difference (the
    whole object), and so is the whole output when one side printed none or another kind."""
    (a, a_nodes), (b, b_nodes) = octavia.fields(), vigil.fields()
    if type(octavia.stdout) is not type(vigil.stdout):
        a = {k: v for k, v in a.items() if not k.startswith("out")}
        b = {k: v for k, v in b.items() if not k.startswith("out")}
        a["out"], b["out"] = octavia.stdout, vigil.stdout
        a_nodes = b_nodes = {}
    def inside(path, outer):
        return path.startswith((outer + ".", outer + "["))

    for mine, theirs, fields in ((a_nodes, b_nodes, a), (b_nodes, a_nodes, b)):
        only = set(mine) - set(theirs)
        for path in only:
            if any(inside(path, outer) for outer in only):
                continue  # inside another object only this side has
            for side in (a, b):
                for k in [k for k in side if inside(k, path)]:
                    del side[k]
            fields[path] = mine[path]
    return [Difference(step, path, a.get(path, ABSENT), b.get(path, ABSENT))
            for path in sorted(set(a) | set(b)) if a.get(path, ABSENT) != b.get(path, ABSENT)]


def _glob(pattern, s):
    """`*` matches any text; all else, brackets too (paths have `[<id>]`), is literal."""
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), s) is not None


@dataclass
class Deliberate:
    """One entry of the list: steps and path are patterns where `*` is any text; octavia and
    vigil are the two values, compared after normalisation (`<any>`: any value). An entry
    marked `known_bug` is not deliberate but a bug (tests/octavia/differences.md) being fixed:
    it may stop occurring."""
    steps: list
    path: str
    octavia: object
    vigil: object
    reason: str
    known_bug: bool = False

    def matches(self, d):
        return (any(_glob(s, d.step) for s in self.steps) and _glob(self.path, d.path)
                and self.octavia in (ANY, d.octavia) and self.vigil in (ANY, d.vigil))

    def __str__(self):
        return (f"{self.steps}: {self.path}: octavia {json.dumps(self.octavia)}, "
                f"vigil {json.dumps(self.vigil)} ({self.reason})")


def load_deliberate(path):
    entries = yaml.safe_load(Path(path).read_text()) or []
    out = []
    for i, e in enumerate(entries):
        missing = {"steps", "path", "octavia", "vigil", "reason"} - set(e)
        assert not missing, f"{path}: entry {i + 1} lacks {sorted(missing)}"
        unknown = set(e) - {"steps", "path", "octavia", "vigil", "reason", "known_bug"}
        assert not unknown, f"{path}: entry {i + 1} has unknown keys {sorted(unknown)}"
        steps = e["steps"] if isinstance(e["steps"], list) else [e["steps"]]
        out.append(Deliberate(steps, e["path"], e["octavia"], e["vigil"], e["reason"],
                              bool(e.get("known_bug"))))
    return out


def is_raw(entry):
    """An entry about test_differential_lists.py's raw requests, whose steps are named after
    them ("GET /v2/lbaas/pools?..."), not about the CLI's steps."""
    return all(s.startswith(("GET /", "POST /")) for s in entry.steps)


def check(found, deliberate):
    """(differences no entry explains, entries that explain no difference)."""
    unexplained = [d for d in found if not any(e.matches(d) for e in deliberate)]
    unused = [e for e in deliberate
              if not e.known_bug and not any(e.matches(d) for d in found)]
    return unexplained, unused


def as_entries(found):
    """The differences as deliberate_differences.yaml entries without a reason: one per path
    and pair of values, with the steps where they occur (what a failure prints)."""
    grouped = {}
    for d in found:
        grouped.setdefault((d.path, json.dumps(d.octavia), json.dumps(d.vigil)), []).append(d.step)
    return yaml.safe_dump([{"steps": steps, "path": path, "octavia": json.loads(a),
                            "vigil": json.loads(b), "reason": "?"}
                           for (path, a, b), steps in grouped.items()],
                          sort_keys=False, width=100, allow_unicode=True)
