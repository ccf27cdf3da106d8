// The opcode table (opcodes.h) as the compiler and loader read it at run time: one copy,
// in flash on the boards.
#include "opcodes.h"

namespace k32 {
namespace wasm {
namespace opc {

const InfoTable<kTableBytes> kTable = make_info();
const InfoTable<kFCCount> kFCTable = make_fc_info();

}  // namespace opc
}  // namespace wasm
}  // namespace k32
