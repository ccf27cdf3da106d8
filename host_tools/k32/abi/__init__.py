"""The pod ABI: wasm_abi/k32_abi.yaml and the generators that emit the C header for pod
authors, the firmware's host-function table and docs/abi.md from it."""
