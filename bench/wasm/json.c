/* Parsing: a small JSON tokenizer/validator over a generated Kubernetes-like document. */
#include <string.h>

#include "bench.h"

static char doc[16384];
static int pos;

static int skip_ws(void) {
  while (doc[pos] == ' ' || doc[pos] == '\n' || doc[pos] == '\t' || doc[pos] == '\r') pos++;
  return doc[pos];
}

static uint32_t value(int depth);

static uint32_t string(void) {
  uint32_t h = 5381;
  pos++; /* opening quote */
  while (doc[pos] && doc[pos] != '"') {
    if (doc[pos] == '\\') pos++;
    h = h * 33 + (uint8_t)doc[pos++];
  }
  pos++;
  return h;
}

static uint32_t number(void) {
  uint32_t v = 0;
  if (doc[pos] == '-') pos++;
  while (doc[pos] >= '0' && doc[pos] <= '9') v = v * 10 + (uint32_t)(doc[pos++] - '0');
  return v;
}

static uint32_t value(int depth) {
  int c = skip_ws();
  uint32_t h = 0;
  if (c == '{' || c == '[') {
    int close = c == '{' ? '}' : ']';
    pos++;
    if (skip_ws() == close) {
      pos++;
      return 1;
    }
    for (;;) {
      if (c == '{') {
        h = h * 3 + string();
        skip_ws();
        pos++; /* colon */
      }
      h = h * 7 + value(depth + 1);
      if (skip_ws() == ',') {
        pos++;
        skip_ws();
        continue;
      }
      pos++;
      return h + (uint32_t)depth;
    }
  }
  if (c == '"') return string();
  if (c == 't') {
    pos += 4;
    return 11;
  }
  if (c == 'f') {
    pos += 5;
    return 13;
  }
  if (c == 'n') {
    pos += 4;
    return 17;
  }
  return number();
}

static int append(int at, const char* s) {
  size_t n = strlen(s);
  memcpy(doc + at, s, n);
  return at + (int)n;
}

static uint32_t run(void) {
  int at = append(0, "{\"kind\": \"PodList\", \"items\": [");
  for (int i = 0; i < 60; i++) {
    at = append(at, i ? ", " : "");
    at = append(at, "{\"metadata\": {\"name\": \"echo-7d9f\", \"namespace\": \"default\", \"labels\": "
                    "{\"app\": \"echo\", \"tier\": \"web\"}}, \"spec\": {\"containers\": [{\"image\": "
                    "\"echo.wasm\", \"ports\": [8080, 8443], \"args\": [\"-v\", \"--x=\\\"y\\\"\"]}], "
                    "\"restart\": true, \"node\": null, \"limits\": {\"memory\": 65536}}}");
  }
  append(at, "]}");
  uint32_t h = 0;
  for (int rep = 0; rep < 750; rep++) {
    pos = 0;
    h ^= value(0) + (uint32_t)rep;
  }
  return h;
}
BENCH_MAIN(run)
