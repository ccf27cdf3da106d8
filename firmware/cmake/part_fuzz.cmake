# libFuzzer targets: every firmware/fuzz/fuzz_<name>.cpp becomes k32-fuzz-<name> when K32_FUZZ
# is ON (clang). The parsers are compiled once into k32fuzzlib and linked into each target, so
# adding a target costs one file, not another instrumented build. `k32 fuzz` drives all this.
if(NOT K32_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "K32_FUZZ needs clang (libFuzzer): configure with CXX=clang++ CC=clang")
endif()

# Only the code that reads outside bytes (and what it calls): the rest of k32core is not
# needed by any target and would only lengthen the instrumented build.
set(K32_FUZZ_LIB_DIRS json yaml util http api/protobuf_body api/metrics_store console patch openapi/schema store calls/http_exchange
    calls/call_headers)
set(K32_FUZZ_LIB_SRC "")
foreach(d ${K32_FUZZ_LIB_DIRS})
  file(GLOB part CONFIGURE_DEPENDS src/core/${d}.cpp src/core/${d}/*.cpp)
  list(APPEND K32_FUZZ_LIB_SRC ${part})
endforeach()
# the HTTP client and server threads are not parsers; the server's head parser is in http_message
list(FILTER K32_FUZZ_LIB_SRC EXCLUDE REGEX ".*/(http_client|http_server|keepalive_pool)\\.cpp$")
# the schema table only: the served OpenAPI documents (a megabyte of data) parse nothing
set(K32_FUZZ_GEN_SRC ${K32_APIGEN_OUTPUTS})
list(FILTER K32_FUZZ_GEN_SRC INCLUDE REGEX ".*schema_table\\.cpp$")
add_library(k32fuzzlib STATIC ${K32_FUZZ_LIB_SRC} ${K32_FUZZ_GEN_SRC})
add_dependencies(k32fuzzlib ${K32_GEN_TARGETS})
target_include_directories(k32fuzzlib PUBLIC src port include "${K32_GEN}")
target_compile_options(k32fuzzlib PRIVATE -fno-exceptions)
target_link_libraries(k32fuzzlib PUBLIC k32port)

if(TARGET k32wasm)
  # The interpreter loop is one very large function: with one shared dispatch point and no
  # optimisation, clang instruments it in seconds; at -O1 its ASan and coverage passes take
  # over ten minutes, longer than every other object together (CI runs this build).
  target_compile_definitions(k32wasm PRIVATE K32_WASM_SINGLE_DISPATCH)
  # cold handlers out of line, as on the boards with the loop in IRAM: that path is fuzzed too
  target_compile_definitions(k32wasm PRIVATE K32_WASM_HOT_SPLIT)
  set_source_files_properties(src/wasm/exec.cpp PROPERTIES COMPILE_OPTIONS -O0)
endif()

file(GLOB K32_FUZZ_SRC CONFIGURE_DEPENDS fuzz/fuzz_*.cpp)
set(K32_FUZZ_TARGETS "")
foreach(f ${K32_FUZZ_SRC})
  get_filename_component(name ${f} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${name})
  string(REPLACE "_" "-" name ${name})
  add_executable(k32-fuzz-${name} ${f})
  target_include_directories(k32-fuzz-${name} PRIVATE fuzz)
  target_compile_options(k32-fuzz-${name} PRIVATE -fno-exceptions)
  target_link_options(k32-fuzz-${name} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(k32-fuzz-${name} PRIVATE k32fuzzlib)
  if(name STREQUAL "wasm")
    target_link_libraries(k32-fuzz-${name} PRIVATE k32wasm)
  endif()
  list(APPEND K32_FUZZ_TARGETS k32-fuzz-${name})
endforeach()
add_custom_target(k32-fuzz-all DEPENDS ${K32_FUZZ_TARGETS})
