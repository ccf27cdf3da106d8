# WebAssembly interpreter extras: exact IEEE floats on 32-bit x86 and the k32-wasm tool.
if(K32_M32 AND TARGET k32wasm)
  # x87 arithmetic would double-round and quiet signalling NaNs: use SSE, as WebAssembly's exact IEEE 754 semantics require
  target_compile_options(k32wasm PRIVATE -msse2 -mfpmath=sse)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND TARGET k32wasm)
  # the dispatch loop is one big function; let GCC keep its registers, and keep the short
  # local-zeroing loop of a call inline instead of a memset call
  target_compile_options(k32wasm PRIVATE -fno-gcse -fno-tree-loop-distribute-patterns)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND K32_PLATFORM STREQUAL "host" AND NOT K32_FUZZ AND TARGET k32wasm)
  # Every handler of the dispatch loop starts on a 16-byte boundary: an indirect jump's target
  # then begins a fresh fetch block on x86, and one handler's speed no longer depends on where
  # the code before it happens to end (builds differing only in layout moved single programs of
  # the benchmark set by 5 %; aligned, the set ran 1 % faster). Board builds optimise for size.
  set_source_files_properties(src/wasm/exec.cpp PROPERTIES COMPILE_OPTIONS -falign-labels=16)
endif()

# Handlers outside exec_hot.h run out of line (exec.cpp) only where the dispatch loop must stay
# small: boards with wasm_loop: iram (their component defines the section), the Cortex-M4 build
# that stands for them in the size figures, and the fuzzing build (cmake/part_fuzz.cmake), which
# so keeps testing the out-of-line path. ON: the same on the host, to measure what it costs.
option(K32_WASM_HOT_SPLIT "run the handlers outside exec_hot.h out of line, as boards with the loop in IRAM do" OFF)
if((K32_WASM_HOT_SPLIT OR K32_PLATFORM STREQUAL "mcu") AND TARGET k32wasm)
  target_compile_definitions(k32wasm PRIVATE K32_WASM_HOT_SPLIT)
endif()

option(K32_WASM_PROFILE "count executed interpreter instructions and pairs (development aid)" OFF)
if(K32_WASM_PROFILE AND TARGET k32wasm)
  target_compile_definitions(k32wasm PRIVATE K32_WASM_PROFILE)
endif()

file(GLOB K32_WASM_TOOL_SRC CONFIGURE_DEPENDS tools/wasm/*.cpp)
add_executable(k32-wasm ${K32_WASM_TOOL_SRC})
target_link_libraries(k32-wasm PRIVATE k32wasm)
if(NOT K32_PLATFORM STREQUAL "host")
  target_link_libraries(k32-wasm PRIVATE k32port)  # startup code, memory map, system calls
endif()
target_compile_options(k32-wasm PRIVATE -fno-exceptions)

# The libFuzzer target firmware/fuzz/fuzz_wasm.cpp is built by cmake/part_fuzz.cmake (K32_FUZZ).
