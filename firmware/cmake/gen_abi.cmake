# The pod ABI's host-function table, generated from wasm_abi/k32_abi.yaml at configure
# time (so every target sees the header) and again when the ABI file changes.
set(K32_ABI_FILE "${K32_REPO}/wasm_abi/k32_abi.yaml")
file(GLOB K32_ABI_TOOL_SRC "${K32_REPO}/host_tools/k32/abi/*.py")
set(K32_ABI_GEN_CMD ${CMAKE_COMMAND} -E env "PYTHONPATH=${K32_REPO}/host_tools"
    ${K32_PYTHON} -m k32.abi table --out-dir ${K32_GEN})
execute_process(COMMAND ${K32_ABI_GEN_CMD} RESULT_VARIABLE k32_abi_rc)
if(NOT k32_abi_rc EQUAL 0)
  message(FATAL_ERROR "k32_abi_table: generation from ${K32_ABI_FILE} failed (see above)")
endif()
add_custom_command(OUTPUT "${K32_GEN}/k32_abi_table.stamp"
  COMMAND ${K32_ABI_GEN_CMD}
  COMMAND ${CMAKE_COMMAND} -E touch "${K32_GEN}/k32_abi_table.stamp"
  DEPENDS ${K32_ABI_FILE} ${K32_ABI_TOOL_SRC}
  COMMENT "Generating the pod ABI host-function table")
add_custom_target(k32_abi_table DEPENDS "${K32_GEN}/k32_abi_table.stamp")
list(APPEND K32_GEN_TARGETS k32_abi_table)
list(APPEND K32_GEN_CORE_SRC "${K32_GEN}/k32_abi_table.cpp")
