# The firmware's source lists and generated sources, shared by every build of it: the host
# build (CMakeLists.txt: simulator and tests), the ESP-IDF component (idf/kube32, built by
# PlatformIO or idf.py) and the listing `k32 build firmware --list`. Callers set K32_GEN (the
# folder for generated files), K32_BOARD and K32_PYTHON, and may set K32_GENERATE_AT_CONFIGURE
# (PlatformIO compiles from CMake's code model without running build-time commands, so the
# ESP-IDF build generates while it configures).
#
# Defines (absolute paths):
#   K32_WASM_SRC K32_CORE_SRC K32_APP_SRC        portable sources above port/
#   K32_GEN_CORE_SRC K32_GEN_APP_SRC K32_GEN_TARGETS   generated sources and their targets
#   K32_PORT_HOST_SRC K32_PORT_ESP32_SRC K32_PORT_MCU_SRC   one platform's port/ implementation
#                                                 (host and ESP32 both include port/tls_mbedtls,
#                                                 the TLS and SHA-256 code they share, and
#                                                 port/posix, their durable-file layer)
#   K32_INCLUDE_DIRS                              include folders of every source above
get_filename_component(K32_FW_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
get_filename_component(K32_REPO "${K32_FW_DIR}/.." ABSOLUTE)
if(NOT K32_PYTHON)
  find_program(K32_PYTHON NAMES python3 HINTS "${K32_REPO}/.venv/bin" NO_DEFAULT_PATH)
  if(NOT K32_PYTHON)
    find_program(K32_PYTHON NAMES python3 REQUIRED)
  endif()
endif()
if(NOT K32_BOARD)
  set(K32_BOARD "sim")
endif()
file(MAKE_DIRECTORY "${K32_GEN}")
include("${CMAKE_CURRENT_LIST_DIR}/generate.cmake")

file(GLOB_RECURSE K32_WASM_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/src/wasm/*.cpp")
file(GLOB_RECURSE K32_CORE_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/src/core/*.cpp")
file(GLOB_RECURSE K32_APP_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/src/app/*.cpp")
file(GLOB K32_PORT_HOST_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/port/host/*.cpp")
list(FILTER K32_PORT_HOST_SRC EXCLUDE REGEX ".*/main_host\\.cpp$")
file(GLOB K32_PORT_ESP32_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/port/esp32/*.cpp")
# TLS and SHA-256 on mbedTLS, for every port that links it; a build without mbedTLS leaves
# K32_PORT_HAS_TLS undefined and these files compile to nothing.
file(GLOB K32_PORT_TLS_MBEDTLS_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/port/tls_mbedtls/*.cpp")
list(APPEND K32_PORT_HOST_SRC ${K32_PORT_TLS_MBEDTLS_SRC})
list(APPEND K32_PORT_ESP32_SRC ${K32_PORT_TLS_MBEDTLS_SRC})
# Durable files on a POSIX file system, shared by the ports whose files speak POSIX (the
# host's file system, ESP-IDF's VFS over LittleFS).
file(GLOB K32_PORT_POSIX_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/port/posix/*.cpp")
list(APPEND K32_PORT_HOST_SRC ${K32_PORT_POSIX_SRC})
list(APPEND K32_PORT_ESP32_SRC ${K32_PORT_POSIX_SRC})
file(GLOB K32_PORT_MCU_SRC CONFIGURE_DEPENDS "${K32_FW_DIR}/port/mcu/*.cpp" "${K32_FW_DIR}/port/mcu/*.c")
list(FILTER K32_PORT_MCU_SRC EXCLUDE REGEX ".*/main_mcu\\.cpp$")

# Generators append their outputs to K32_GEN_CORE_SRC / K32_GEN_APP_SRC / K32_GEN_TARGETS.
set(K32_GEN_CORE_SRC "")
set(K32_GEN_APP_SRC "")
set(K32_GEN_TARGETS "")
file(GLOB K32_CMAKE_GENS CONFIGURE_DEPENDS "${K32_FW_DIR}/cmake/gen_*.cmake")
foreach(gen ${K32_CMAKE_GENS})
  include(${gen})
endforeach()

set(K32_INCLUDE_DIRS "${K32_FW_DIR}/src" "${K32_FW_DIR}/port" "${K32_FW_DIR}/include" "${K32_GEN}")

# What the board firmware compiles (the ESP-IDF component's sources).
set(K32_BOARD_FIRMWARE_SRC ${K32_WASM_SRC} ${K32_CORE_SRC} ${K32_APP_SRC} ${K32_GEN_CORE_SRC} ${K32_GEN_APP_SRC}
    ${K32_PORT_ESP32_SRC})
