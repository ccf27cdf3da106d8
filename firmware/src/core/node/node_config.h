// What a node is told at start (flags in the simulator, NVS on boards).
#pragma once
#include <cstdint>
#include <string>

namespace k32 {
namespace node {

enum class Role { ControlPlane, Worker };

struct NodeConfig {
  Role role = Role::ControlPlane;
  std::string name;
  std::string bind_ip = "127.0.0.1";
  uint16_t api_port = 6443;
  uint16_t ingress_port = 80;
  uint16_t pod_port = 7000;
  uint16_t console_port = 0;  // 0: the console is stdin/stdout (the UART on boards)
  std::string state_dir;
  std::string token;
  std::string control_plane_url;  // workers: http://IP:PORT of the API server
  std::string board = "sim";
  std::string sd_dir;
  std::string egress_ca;
  std::string bundle_digest;
};

// Heartbeat timing (kubelet → API server) and the control plane's verdict on silence.
// A silent node turns NotReady at most kNodeGraceMs + kNodeMonitorMs after its last
// heartbeat, which keeps the 40 s bound with a 10 s heartbeat.
constexpr uint32_t kHeartbeatMs = 10000;
constexpr uint32_t kNodeGraceMs = 28000;
constexpr uint32_t kNodeMonitorMs = 2000;
constexpr int32_t kLeaseDurationS = 40;

}  // namespace node
}  // namespace k32
