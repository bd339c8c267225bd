"""What the Python tests (tests/) and the benchmarks (bench/) share: one bounded wait, the build's
paths, vigil on loopback, network namespaces. Standard library only: bench/ runs it on bare hosts.

Imported as `testing.harness` from the repository root: pytest.ini puts the root on the import
path for the test suites, and bench/ scripts run as modules from the root
(`python3 -m bench.failover.run`).
"""
