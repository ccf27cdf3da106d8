"""`k32 sim up` keeps the previous run's node log (node.log -> node.log.1) instead of
truncating it: the log that explains a crash must survive the restart after it."""

import uuid

import pytest


@pytest.mark.slow
def test_restart_keeps_previous_log(sim_factory):
    cluster = sim_factory(workers=0)
    cluster.up()
    name = cluster.nodes[0].name
    log = cluster.log_path(name)
    cluster.down()
    assert log.read_bytes(), "the first run wrote no log"
    # Stands for the lines that explain a crash: unique to the first run's log.
    marker = f"first run ended {uuid.uuid4()}\n".encode()
    with open(log, "ab") as f:
        f.write(marker)
    first = log.read_bytes()
    cluster.up()
    previous = log.with_name(log.name + ".1")
    assert previous.exists(), f"{previous} missing: the restart dropped the first run's log"
    assert previous.read_bytes() == first
    assert marker not in log.read_bytes()  # the new run has a log of its own
