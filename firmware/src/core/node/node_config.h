// What a node is told at start (flags in the simulator, NVS on boards).
#pragma once
#include <cstdint>
#include <string>

#include "k32_board.h"

namespace k32 {
namespace node {

enum class Role { ControlPlane, Worker };

struct NodeConfig {
  Role role = Role::ControlPlane;
  std::string name;
  std::string bind_ip = "127.0.0.1";
  uint16_t api_port = 6443;
  uint16_t ingress_port = K32_INGRESS_PORT;
  uint16_t pod_port = K32_POD_PORT;
  uint16_t console_port = 0;  // 0: the console is stdin/stdout (the UART on boards)
  std::string state_dir;
  std::string token;
  std::string control_plane_url;       // workers: http://IP:PORT of the API server
  std::string board = K32_BOARD_NAME;  // the profile this binary was built with
  std::string sd_dir;
  std::string egress_ca;
  std::string bundle_digest;
};

// Heartbeat timing (kubelet -> API server) and the control plane's verdict on silence.
// A silent node turns NotReady at most kNodeGraceMs + kNodeMonitorMs after its last
// heartbeat; the heartbeat may have come kHeartbeatMs before the node fell silent, so the
// three add up to K32_NODE_NOT_READY_MS (40 s, kube-controller-manager's default).
constexpr uint32_t kHeartbeatMs = 10000;
constexpr uint32_t kNodeMonitorMs = 2000;
constexpr uint32_t kNodeGraceMs = K32_NODE_NOT_READY_MS - kHeartbeatMs - kNodeMonitorMs;
constexpr int32_t kLeaseDurationS = static_cast<int32_t>(K32_NODE_NOT_READY_MS / 1000);

}  // namespace node
}  // namespace k32
