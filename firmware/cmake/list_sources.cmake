# `k32 build firmware --board B --list`: generate every generated source as the ESP-IDF build
# does and write what its component compiles (K32_BOARD_FIRMWARE_SRC) to
# firmware-sources.txt, one path a line. Fails when a listed file is missing or listed twice.
set(K32_GEN "${CMAKE_BINARY_DIR}/generated")
set(K32_GENERATE_AT_CONFIGURE ON)
include("${CMAKE_CURRENT_LIST_DIR}/sources.cmake")
set(k32_seen "")
set(k32_text "")
foreach(src ${K32_BOARD_FIRMWARE_SRC})
  if(NOT EXISTS "${src}")
    message(FATAL_ERROR "listed but missing: ${src}")
  endif()
  if(src IN_LIST k32_seen)
    message(FATAL_ERROR "listed twice: ${src}")
  endif()
  list(APPEND k32_seen "${src}")
  string(APPEND k32_text "${src}\n")
endforeach()
file(WRITE "${CMAKE_BINARY_DIR}/firmware-sources.txt" "${k32_text}")
