# k32-call: one k32_http_call (or an egress gateway) from the command line, for
# tests/calls and `k32 bench calls`.
if(K32_PLATFORM STREQUAL "host")  # it opens sockets and runs threads
  add_executable(k32-call tools/calls/k32-call.cpp)
  target_link_libraries(k32-call PRIVATE k32app k32core k32wasm k32port)
endif()
