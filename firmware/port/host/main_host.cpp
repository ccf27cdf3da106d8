// The simulator's entry point: flags → NodeConfig → the same node wiring a board runs.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "app/node_app.h"
#include "core/util/text.h"
#include "k32_board.h"

namespace {

void usage() {
  std::fprintf(stderr, "usage: k32-node --role control-plane|worker --name NAME [--bind IP] [--api-port N]\n"
                       "                [--ingress-port N] [--pod-port N] [--console-port N] [--state DIR]\n"
                       "                [--token-file F] [--control-plane http://IP:PORT] [--board B] [--sd DIR]\n"
                       "                [--egress-ca PEM] [--bundle DIGEST]\n");
}

bool port_arg(const char* flag, const char* v, uint16_t* out) {
  uint64_t n = 0;
  if (!k32::text::parse_uint(v, 65535, &n)) {
    std::fprintf(stderr, "k32-node: %s needs a port number 0-65535 (got \"%s\")\n", flag, v);
    return false;
  }
  *out = static_cast<uint16_t>(n);
  return true;
}

// The bearer token comes from a file (mode 0600 in the state dir when `k32 sim up` writes
// it): a command-line flag would show it to every user in the process list.
bool read_token_file(const char* path, std::string* out) {
  FILE* f = std::fopen(path, "rb");
  if (!f) {
    std::fprintf(stderr, "k32-node: --token-file %s: %s\n", path, std::strerror(errno));
    return false;
  }
  char buf[514];
  size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  std::string t(buf, n);
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  if (t.size() > 512) {
    std::fprintf(stderr, "k32-node: --token-file %s: the token is longer than 512 bytes\n", path);
    return false;
  }
  for (unsigned char c : t)
    if (c < 0x21 || c > 0x7e) {
      std::fprintf(stderr, "k32-node: --token-file %s: the token must be printable ASCII without spaces\n", path);
      return false;
    }
  *out = t;
  return true;
}

}  // namespace

namespace k32 {
namespace port {
void host_save_argv(int argc, char** argv);  // port/host: what system_restart re-executes
}
}  // namespace k32

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  k32::port::host_save_argv(argc, argv);
  k32::node::NodeConfig cfg;
  bool role_set = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      usage();
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "k32-node: %s needs a value\n", a.c_str());
      usage();
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--role") {
      if (std::strcmp(v, "control-plane") == 0) cfg.role = k32::node::Role::ControlPlane;
      else if (std::strcmp(v, "worker") == 0) cfg.role = k32::node::Role::Worker;
      else {
        std::fprintf(stderr, "k32-node: --role must be control-plane or worker (got \"%s\")\n", v);
        return 2;
      }
      role_set = true;
    } else if (a == "--name") cfg.name = v;
    else if (a == "--bind") cfg.bind_ip = v;
    else if (a == "--api-port") {
      if (!port_arg("--api-port", v, &cfg.api_port)) return 2;
    } else if (a == "--ingress-port") {
      if (!port_arg("--ingress-port", v, &cfg.ingress_port)) return 2;
    } else if (a == "--pod-port") {
      if (!port_arg("--pod-port", v, &cfg.pod_port)) return 2;
    } else if (a == "--console-port") {
      if (!port_arg("--console-port", v, &cfg.console_port)) return 2;
    } else if (a == "--state") cfg.state_dir = v;
    else if (a == "--token-file") {
      if (!read_token_file(v, &cfg.token)) return 2;
    } else if (a == "--token") {
      std::fprintf(stderr, "k32-node: --token would show the secret in the process list; use --token-file\n");
      return 2;
    } else if (a == "--control-plane") cfg.control_plane_url = v;
    else if (a == "--board") cfg.board = v;
    else if (a == "--sd") cfg.sd_dir = v;
    else if (a == "--egress-ca") cfg.egress_ca = v;
    else if (a == "--bundle") cfg.bundle_digest = v;
    else {
      std::fprintf(stderr, "k32-node: unknown flag %s\n", a.c_str());
      usage();
      return 2;
    }
  }
  if (!role_set || cfg.name.empty()) {
    std::fprintf(stderr, "k32-node: --role and --name are required\n");
    usage();
    return 2;
  }
  // The budgets are compiled in (k32_board.h): a node runs only the profile it was built with.
  if (cfg.board != K32_BOARD_NAME) {
    std::fprintf(stderr,
                 "k32-node: --board %s, but this binary was built with the %s profile "
                 "(configure a build with -DK32_BOARD=%s)\n",
                 cfg.board.c_str(), K32_BOARD_NAME, cfg.board.c_str());
    return 2;
  }
  if (cfg.role == k32::node::Role::Worker && cfg.control_plane_url.empty()) {
    std::fprintf(stderr, "k32-node: a worker needs --control-plane http://IP:PORT\n");
    return 2;
  }
  return k32::app::run_node(cfg);
}
