"""Benchmarks (`k32 bench …`): speed and memory numbers, never pass/fail timing tests."""
