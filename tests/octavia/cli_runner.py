"""The stock `openstack` CLI (python-openstackclient's shell, with octaviaclient's commands), run
once per request in one long-lived process, so that a test of many steps pays the CLI's imports
(about a second of CPU each time) once. Each command gets a fresh shell, as `openstack ARGS`
would; only its output streams differ: they are captured.

Protocol: one JSON array of arguments per line on stdin; one JSON object
{"rc": exit code, "stdout": ..., "stderr": ...} per line on stdout.
"""
import contextlib
import io
import json
import logging
import sys

sys.argv[0] = "openstack"  # cliff takes the program name of its messages from it at import
from openstackclient import shell  # noqa: E402


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    root = logging.getLogger("")
    handlers = list(root.handlers)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = shell.main(argv)
        except SystemExit as e:  # argparse's errors and --help
            rc = e.code if isinstance(e.code, int) else 1
        finally:
            # The shell adds a console handler to the root logger on every run.
            for h in root.handlers[:]:
                if h not in handlers:
                    root.removeHandler(h)
    return {"rc": rc or 0, "stdout": out.getvalue(), "stderr": err.getvalue()}


def main():
    answers = sys.stdout
    for line in sys.stdin:
        answers.write(json.dumps(run(json.loads(line))) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
