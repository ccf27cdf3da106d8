# Embeds the pod images (images/<name>/*.c compiled by `k32 build images`) into the
# firmware as wasm://embedded/<name>; the simulator gets the same table.
set(K32_IMAGES_CPP "${K32_GEN}/k32_images.cpp")
file(GLOB_RECURSE K32_IMAGE_SRC CONFIGURE_DEPENDS "${K32_REPO}/images/*.c" "${K32_REPO}/images/*.h")
file(GLOB K32_IMAGE_TOOL_SRC "${K32_REPO}/host_tools/k32/images/*.py")
# The shadow stack the images are linked with is a board-independent number.
list(APPEND K32_IMAGE_TOOL_SRC "${K32_REPO}/boards/common.yaml")
k32_generate(OUTPUTS "${K32_IMAGES_CPP}"
  COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${K32_REPO}/host_tools"
          ${K32_PYTHON} -m k32.images.embed --out "${K32_IMAGES_CPP}" --wasm-dir "${K32_GEN}/images"
  DEPENDS ${K32_IMAGE_SRC} ${K32_IMAGE_TOOL_SRC} "${K32_REPO}/firmware/include/runtime/k32_app_abi.h"
  COMMENT "Compiling and embedding pod images")
add_custom_target(k32_images DEPENDS "${K32_IMAGES_CPP}")
list(APPEND K32_GEN_TARGETS k32_images)
list(APPEND K32_GEN_CORE_SRC "${K32_IMAGES_CPP}")
