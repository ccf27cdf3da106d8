"""Host side of the Kube32 WebAssembly interpreter: spec-test runner, `k32 wasm run`."""
