# The unit tests the bare-metal build runs under qemu: those that need no network and no
# second thread. The same sources and assertions as in the host build.
set(K32_MCU_TESTS
  wasm/test_embed
  core/test_json core/test_yaml core/test_selectors core/test_store
  patch/test_apply patch/test_json_patch patch/test_strategic_merge patch/test_patch_fuzz
  netpol/test_netpol_eval
  app/test_ingress_routes
  sched/test_scheduler
  http/test_portforward_frames core/test_metrics_store
  port/test_locks port/test_sha256)
list(JOIN K32_MCU_TESTS "|" k32_mcu_alt)
set(K32_MCU_TESTS_REGEX "/(${k32_mcu_alt})\\.cpp$")
# ctest runs each test executable through this wrapper: qemu's MPS2 AN386 (Cortex-M4) with
# semihosting for the console, host files, arguments and the exit status.
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_SOURCE_DIR}/port/mcu/qemu-run.sh")

# The .wast conformance suite against the Cortex-M4 interpreter: the Python spec-test runner
# drives `k32-wasm serve` in qemu over the semihosting console.
set(K32_WASM_QEMU "${CMAKE_BINARY_DIR}/k32-wasm-qemu")
file(WRITE "${K32_WASM_QEMU}"
  "#!/bin/sh\nexec \"${CMAKE_CURRENT_SOURCE_DIR}/port/mcu/qemu-run.sh\" \"${CMAKE_BINARY_DIR}/k32-wasm\" \"$@\"\n")
file(CHMOD "${K32_WASM_QEMU}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
     WORLD_READ WORLD_EXECUTE)
file(GLOB K32_WAST_FILES CONFIGURE_DEPENDS "${K32_REPO}/tests/wasm/wast/*.wast")
add_test(NAME wasm/wast_suite
  COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${K32_REPO}/host_tools"
          ${K32_PYTHON} -m k32.cli wasm spectest --tool "${K32_WASM_QEMU}" ${K32_WAST_FILES}
  WORKING_DIRECTORY "${K32_REPO}")
