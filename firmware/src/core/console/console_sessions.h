// The TCP console's sessions (the simulator's stand-in for a board's UART): one thread of
// `console_stack` accepts them and serves up to CONSOLE_CONN_MAX at once, as the board's one
// console thread serves its UART.
#pragma once
#include <cstdint>

#include "core/console/console.h"
#include "port.h"

namespace k32 {
namespace console {

// Starts the thread that serves `listener` (which it then owns); false, nothing started, when
// the heap cannot hold it.
bool serve_sessions(Dispatcher* d, port::Socket listener, uint32_t max_conns);

}  // namespace console
}  // namespace k32
