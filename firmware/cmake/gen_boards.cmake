# k32_board.h: the budgets of boards/${K32_BOARD}.yaml plus boards/common.yaml, generated
# at configure time (so every target sees it) and regenerated when a profile changes.
set(K32_BOARD_HEADER "${K32_GEN}/k32_board.h")
file(GLOB K32_BOARD_PROFILES CONFIGURE_DEPENDS "${K32_REPO}/boards/*.yaml")
file(GLOB K32_BOARD_TOOL_SRC "${K32_REPO}/host_tools/k32/boards/*.py")
set(K32_BOARD_GEN_CMD ${CMAKE_COMMAND} -E env "PYTHONPATH=${K32_REPO}/host_tools"
    ${K32_PYTHON} -m k32.boards.gen_header --board ${K32_BOARD} --out ${K32_BOARD_HEADER})
execute_process(COMMAND ${K32_BOARD_GEN_CMD} RESULT_VARIABLE k32_board_rc)
if(NOT k32_board_rc EQUAL 0)
  message(FATAL_ERROR "k32_board.h: generation failed for K32_BOARD=${K32_BOARD} (see above)")
endif()
add_custom_command(OUTPUT "${K32_BOARD_HEADER}.stamp"
  COMMAND ${K32_BOARD_GEN_CMD}
  COMMAND ${CMAKE_COMMAND} -E touch "${K32_BOARD_HEADER}.stamp"
  DEPENDS ${K32_BOARD_PROFILES} ${K32_BOARD_TOOL_SRC}
  COMMENT "Generating k32_board.h for board ${K32_BOARD}")
add_custom_target(k32_board_header DEPENDS "${K32_BOARD_HEADER}.stamp")
list(APPEND K32_GEN_TARGETS k32_board_header)
