# Static web bundles (images/web/<bundle>/) embedded for the Ingress StaticBundle backends.
set(K32_WEB_ASSETS_CPP "${K32_GEN}/k32_web_assets.cpp")
file(GLOB_RECURSE K32_WEB_FILES CONFIGURE_DEPENDS "${K32_REPO}/images/web/*")
k32_generate(
  OUTPUTS "${K32_WEB_ASSETS_CPP}"
  COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${K32_REPO}/host_tools"
          "${K32_PYTHON}" -m k32.web.embed --out "${K32_WEB_ASSETS_CPP}"
  DEPENDS ${K32_WEB_FILES} "${K32_REPO}/host_tools/k32/web/embed.py"
  COMMENT "Embedding web bundles")
add_custom_target(k32_web_assets DEPENDS "${K32_WEB_ASSETS_CPP}")
set(K32_GEN_APP_SRC ${K32_GEN_APP_SRC} "${K32_WEB_ASSETS_CPP}")
list(APPEND K32_GEN_TARGETS k32_web_assets)
