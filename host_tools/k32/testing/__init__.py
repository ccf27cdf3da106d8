"""Test support, shipped so the test suites (tests/, hil/) and `k32 bench` can use it; nothing
here runs in a normal `k32` command.

- clusters.py: throw-away simulated clusters (a temporary state dir, free ports, a private
  kubeconfig) standing in for a user's cluster, so ~/.kube/config is never touched; and a test
  CA standing in for a public one.
- call_graphs.py: small GCC call-graph files and thread notes for tests of the stack check.
- esprom/: a double of the ESP32 / ESP32-S3 ROM serial bootloader, standing in for a real
  chip when `k32 flash` is tested without a board.
- node_threads.py: a simulated node's threads by name (/proc, its STATUS) and a pod bound to
  one node, for tests of which threads a node holds.
- poll.py: poll_until, the deadline-bounded wait every test uses instead of a fixed sleep.
- pytest_plugin.py, stack_peaks.py: `pytest --board-mode`, the board-mode markers, and every
  test cluster's thread peaks against their budgets, checked at the end of the run."""
