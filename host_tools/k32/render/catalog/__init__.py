"""ServiceDefinition catalog: load + validate + default (load.py), render for k3s (k3s.py)
or for a Kube32 cluster (kube32.py), prove (selftest.py, check.py)."""
