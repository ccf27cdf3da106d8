/* egress-probe: a request pod for examples/egress.yaml. Each request makes one
 * k32_http_call to the URL in the query (?url=http://host:port/path) or, without one, to
 * the PROBE_URL environment variable, and answers with the call's return value and the
 * first bytes of the answer:  "rc=200 status=200\n<body>". A NetworkPolicy denial
 * shows as rc=-1 (K32_ERR_PERM) and the node logs a [NETPOL] line. */
#include "k32_pod.h"

static char url[512];
static char query[600];
static uint8_t resp[1024];
static char line[64];

static uint32_t append(char* out, uint32_t at, const char* s) {
  while (*s) out[at++] = *s++;
  return at;
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
  int32_t ulen = -1;
  int32_t qlen = k32_req_query(query, sizeof query - 1);
  if (qlen > 4 && qlen < (int32_t)sizeof query && query[0] == 'u' && query[1] == 'r' && query[2] == 'l' && query[3] == '=') {
    ulen = qlen - 4;
    for (int32_t i = 0; i < ulen; i++) url[i] = query[4 + i];
  } else {
    ulen = k32_env_get("PROBE_URL", 9, url, sizeof url);
  }
  if (ulen <= 0 || ulen > (int32_t)sizeof url) {
    k32_resp_status(400);
    k32_writes("no ?url= and no PROBE_URL\n");
    return 0;
  }
  uint32_t got = 0;
  int32_t rc = k32_http_call("GET", 3, url, (uint32_t)ulen, "", 0, (const uint8_t*)"", 0, resp, sizeof resp, &got, 0);
  uint32_t n = append(line, 0, "rc=");
  n += k32_itoa(rc, line + n);
  n = append(line, n, " status=");
  n += k32_itoa(k32_http_status(), line + n);
  line[n++] = '\n';
  k32_log(line, n - 1);
  k32_resp_header("Content-Type", 12, "text/plain", 10);
  k32_resp_write((const uint8_t*)line, n);
  if (got) k32_resp_write(resp, got);
  return 0;
}
