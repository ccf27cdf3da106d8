/* echo: the example pod of examples/echo.yaml. Answers every request with the GREETING environment
 * variable, the request line and the request body; publishes each request's path on the
 * echo.events channel (CHANNEL_IPC) and logs the channel events it receives. */
#include "k32_pod.h"

/* The module never grows its memory, so a node gives it only its data and shadow stack (not a
 * whole 64 KiB page) and charges it that much: every byte here is RAM each echo pod holds. A
 * body up to 2 KiB is echoed (larger ones get 413), a channel event up to 512 bytes logged. */
static uint8_t body[2048];
static char greeting[256];
static char method[16];
static char path[512];
static char topic[128];
static uint8_t event[512];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
  int32_t g = k32_env_get("GREETING", 8, greeting, sizeof greeting);
  if (g < 0) g = 0;
  if (g > (int32_t)sizeof greeting) g = sizeof greeting;
  int32_t m = k32_req_method(method, sizeof method);
  if (m > (int32_t)sizeof method) m = sizeof method;
  int32_t p = k32_req_path(path, sizeof path);
  if (p > (int32_t)sizeof path) p = sizeof path;
  int32_t b = k32_req_body(body, sizeof body);
  if (b > (int32_t)sizeof body) {
    k32_resp_status(413);
    k32_writes("request body too large for echo\n");
    return 0;
  }
  k32_resp_status(200);
  k32_resp_header("Content-Type", 12, "text/plain", 10);
  k32_resp_write((const uint8_t*)greeting, (uint32_t)g);
  k32_writes("\n");
  k32_resp_write((const uint8_t*)method, (uint32_t)m);
  k32_writes(" ");
  k32_resp_write((const uint8_t*)path, (uint32_t)p);
  k32_writes("\n");
  k32_resp_write(body, (uint32_t)b);
  /* The publish result goes into the log, so a missing CHANNEL_IPC grant shows (-1). */
  int32_t rc = k32_channel_publish("echo.events", 11, (const uint8_t*)path, (uint32_t)p);
  if (rc != 0) {
    char line[40] = "publish failed: ";
    uint32_t n = 16;
    n += k32_itoa(rc, line + n);
    k32_log(line, n);
  }
  return 0;
}

K32_EXPORT(k32_event) int32_t k32_event(void) {
  int32_t t = k32_event_topic(topic, sizeof topic);
  int32_t d = k32_event_data(event, sizeof event);
  if (t < 0 || d < 0) return 0;
  if (t > (int32_t)sizeof topic) t = sizeof topic;
  if (d > (int32_t)sizeof event) d = sizeof event;
  static char line[sizeof "event " + sizeof topic + 2 + sizeof event];
  uint32_t n = 0;
  const char* pre = "event ";
  for (uint32_t i = 0; pre[i]; i++) line[n++] = pre[i];
  for (int32_t i = 0; i < t; i++) line[n++] = topic[i];
  line[n++] = ':';
  line[n++] = ' ';
  for (int32_t i = 0; i < d; i++) line[n++] = (char)event[i];
  k32_log(line, n);
  return 0;
}
