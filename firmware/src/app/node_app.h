// Wiring of a node: which services run on a control plane and on a worker.
#pragma once
#include "core/node/node_config.h"

namespace k32 {
namespace app {

// Starts every service of the node and blocks for the node's lifetime. Returns an exit
// code only when start-up fails (the reason is logged).
int run_node(const node::NodeConfig& cfg);

}  // namespace app
}  // namespace k32
