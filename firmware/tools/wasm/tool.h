// Shared pieces of the k32-wasm command-line tool.
#pragma once
#include <cstdint>
#include <vector>

namespace k32 {
namespace wasmtool {

bool read_file(const char* path, std::vector<uint8_t>* out);
int serve_main();
int run_main(int argc, char** argv);

}  // namespace wasmtool
}  // namespace k32
