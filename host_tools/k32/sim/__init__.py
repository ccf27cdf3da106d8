"""The host simulator: a Kube32 cluster of k32-node processes on loopback."""
