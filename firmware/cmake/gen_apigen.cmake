# API schema: the served OpenAPI documents and the C++ schema table, generated from the
# upstream Kubernetes schemas by host_tools/k32/apigen (needs `kubernetes-validate`) for the
# kinds listed in the firmware's kinds table (src/core/api/kinds/kinds.def).
set(K32_APIGEN_OUT "${K32_GEN}/apigen")
set(K32_APIGEN_OUTPUTS "${K32_APIGEN_OUT}/k32_openapi_docs.cpp" "${K32_APIGEN_OUT}/k32_schema_table.cpp")
option(K32_OPENAPI_DESCRIPTIONS "Keep field descriptions in the served OpenAPI documents (~4x flash)" OFF)
set(K32_APIGEN_FLAGS "")
if(K32_OPENAPI_DESCRIPTIONS)
  set(K32_APIGEN_FLAGS "--descriptions")
endif()
file(GLOB K32_APIGEN_PY CONFIGURE_DEPENDS "${K32_REPO}/host_tools/k32/apigen/*.py")
k32_generate(
  OUTPUTS ${K32_APIGEN_OUTPUTS}
  COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${K32_REPO}/host_tools"
          "${K32_PYTHON}" -m k32.apigen --cpp-out "${K32_APIGEN_OUT}" ${K32_APIGEN_FLAGS}
  DEPENDS ${K32_APIGEN_PY} "${K32_FW_DIR}/src/core/api/kinds/kinds.def"
  COMMENT "apigen: OpenAPI documents and schema table")
add_custom_target(k32_apigen DEPENDS ${K32_APIGEN_OUTPUTS})
list(APPEND K32_GEN_CORE_SRC ${K32_APIGEN_OUTPUTS})
list(APPEND K32_GEN_TARGETS k32_apigen)
