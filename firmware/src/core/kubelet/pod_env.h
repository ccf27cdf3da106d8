// A container's environment at start: Service links (<SVC>_SERVICE_HOST/_PORT
// and the docker-link style <SVC>_PORT_* names, as the kubelet injects them), the API server's
// KUBERNETES_SERVICE_HOST/PORT, HOSTNAME, then env entries (value, configMapKeyRef,
// secretKeyRef, fieldRef) which win over injected names.
#pragma once
#include <string>
#include <vector>

#include "core/json/json.h"
#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

// False with *err naming the variable and the missing source (CreateContainerConfigError).
// *out gets "KEY=VALUE\0" entries back to back (Container::env).
bool build_env(Pod* p, Container* c, std::string* out, std::string* err);

// The block Container::env holds for `vars`: "KEY=VALUE\0" entries back to back, exactly its
// bytes; of names given twice the later wins (explicit env over injected names).
std::string env_block(const std::vector<std::pair<std::string, std::string>>& vars);

// The Service-link variables of one Service for a pod (pure; used by build_env and tests).
// `endpoints` is the Service's Endpoints object (may be null); node_ip is used when the
// Service selects the pod itself.
void service_env(const json::Value& svc, const json::Value& endpoints, const json::Value& pod, const std::string& node_ip,
                 std::vector<std::pair<std::string, std::string>>* out);

}  // namespace kubelet
}  // namespace k32
