# WebAssembly interpreter extras: exact IEEE floats on 32-bit x86, the k32-wasm tool and
# the libFuzzer target (K32_WASM_FUZZ=ON, clang only).
if(K32_M32 AND TARGET k32wasm)
  # x87 arithmetic would double-round and quiet signalling NaNs: use SSE like the spec wants
  target_compile_options(k32wasm PRIVATE -msse2 -mfpmath=sse)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND TARGET k32wasm)
  # the dispatch loop is one big function; let GCC keep its registers
  target_compile_options(k32wasm PRIVATE -fno-gcse)
endif()

file(GLOB K32_WASM_TOOL_SRC CONFIGURE_DEPENDS tools/wasm/*.cpp)
add_executable(k32-wasm ${K32_WASM_TOOL_SRC})
target_link_libraries(k32-wasm PRIVATE k32wasm)
target_compile_options(k32-wasm PRIVATE -fno-exceptions)

option(K32_WASM_FUZZ "Build the libFuzzer target for the wasm interpreter (clang)" OFF)
if(K32_WASM_FUZZ)
  add_executable(k32-wasm-fuzz fuzz/fuzz_wasm.cpp ${K32_WASM_SRC})
  target_include_directories(k32-wasm-fuzz PRIVATE src/wasm)
  target_compile_options(k32-wasm-fuzz PRIVATE -fsanitize=fuzzer,address,undefined -fno-exceptions)
  target_link_options(k32-wasm-fuzz PRIVATE -fsanitize=fuzzer,address,undefined)
endif()
