/* State machine: an HTTP/1.1 request parser written as a byte-at-a-time state machine (request
 * line, headers, Content-Length), over a stream of generated requests, like the one any
 * network-facing pod runs. */
#include "bench.h"

enum { METHOD, PATH, VERSION, LF1, HNAME, HVALUE, LF2, END_LF, DONE, ERROR };

typedef struct {
  int state, nhdr, clen, in_clen, name_len;
  uint32_t path_hash, method;
} parser;

static const char kCL[] = "content-length";

static int feed(parser* p, const char* s, int n) {
  for (int i = 0; i < n; i++) {
    char c = s[i];
    switch (p->state) {
      case METHOD:
        if (c == ' ') p->state = PATH;
        else if (c >= 'A' && c <= 'Z') p->method = p->method * 31 + (uint32_t)c;
        else p->state = ERROR;
        break;
      case PATH:
        if (c == ' ') p->state = VERSION;
        else if (c > 32 && c < 127) p->path_hash = p->path_hash * 33 ^ (uint32_t)c;
        else p->state = ERROR;
        break;
      case VERSION:
        if (c == '\r') p->state = LF1;
        break;
      case LF1:
      case LF2:
        p->state = c == '\n' ? HNAME : ERROR;
        p->name_len = 0;
        p->in_clen = 1;
        break;
      case HNAME:
        if (c == '\r' && p->name_len == 0) {
          p->state = END_LF;
          break;
        }
        if (c == ':') {
          p->state = HVALUE;
          p->in_clen = p->in_clen && p->name_len == 14;
          p->nhdr++;
          break;
        }
        {
          char l = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
          if (p->name_len >= 14 || kCL[p->name_len] != l) p->in_clen = 0;
          p->name_len++;
        }
        break;
      case HVALUE:
        if (c == '\r') p->state = LF2;
        else if (p->in_clen && c >= '0' && c <= '9') p->clen = p->clen * 10 + (c - '0');
        break;
      case END_LF: p->state = c == '\n' ? DONE : ERROR; break;
      default: return i;
    }
  }
  return n;
}

static char req[512];

static int put(int at, const char* s) {
  while (*s) req[at++] = *s++;
  return at;
}

static const char* const paths[] = {"/api/v1/pods", "/healthz", "/api/v1/namespaces/default/pods/echo", "/metrics",
                                    "/apis/apps/v1/deployments?watch=1"};

static uint32_t run(void) {
  uint32_t h = 0;
  for (int rep = 0; rep < 7000; rep++) {
    uint32_t r = bench_rand();
    int at = put(0, r & 1 ? "GET " : "POST ");
    at = put(at, paths[r % 5]);
    at = put(at, " HTTP/1.1\r\nHost: node-3.local:6443\r\nUser-Agent: kubectl/v1.29.0\r\n"
                 "Accept: application/json\r\nContent-Type: application/json\r\n");
    at = put(at, r & 2 ? "Content-Length: 1234\r\n" : "content-length: 56\r\n");
    at = put(at, "Authorization: Bearer abcdefghijklmnop\r\n\r\n");
    parser p = {0};
    /* fed in chunks of varying size, as a socket delivers it */
    for (int off = 0, chunk = 7 + (int)(r >> 28); off < at; off += chunk) {
      int n = at - off < chunk ? at - off : chunk;
      feed(&p, req + off, n);
    }
    h = h * 31 + p.path_hash + p.method + (uint32_t)p.clen * 7 + (uint32_t)p.nhdr + (uint32_t)p.state;
  }
  return h;
}
BENCH_MAIN(run)
