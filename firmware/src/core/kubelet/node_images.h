// The node's status.images, as Kubernetes nodes report the images they hold: one entry per
// compiled module in the module cache, named by its digest-qualified image ID and by the
// name the scheduler matches pods' images with (sched::image_key), sizeBytes the heap the
// module keeps (module_heap_bytes). The scheduler charges a module once per node from it.
#pragma once
#include "core/json/json.h"

namespace k32 {
namespace kubelet {

// The list for a status patch: an array, or null when no module is held (which removes the
// field, as a node without images has none).
json::Value node_images_status();

}  // namespace kubelet
}  // namespace k32
