/* Memory copy and fill: a ring of buffers shuffled with memcpy, memmove and memset of mixed sizes
 * (a few bytes to a few KiB), plus struct assignments: what packet handling and serialisation
 * code spends its time on. */
#include <string.h>

#include "bench.h"

#define POOL 65536
static uint8_t pool[POOL], scratch[8192];
typedef struct {
  uint32_t a, b, c, d;
  uint8_t tag[16];
} msg;
static msg msgs[512];

static uint32_t run(void) {
  for (uint32_t i = 0; i < POOL; i++) pool[i] = (uint8_t)(i ^ (i >> 7));
  uint32_t h = 0;
  for (int rep = 0; rep < 180000; rep++) {
    uint32_t r = bench_rand();
    uint32_t len = (r & 7) == 0 ? 1024 + (r >> 20) % 3072 : 4 + (r >> 24) % 120;
    uint32_t from = (r >> 5) % (POOL - 4096), to = (r >> 11) % (POOL - 4096);
    switch (r >> 30) {
      case 0:
        memcpy(scratch, pool + from, len);
        memcpy(pool + to, scratch, len);
        break;
      case 1: memmove(pool + to, pool + from, len); break;
      case 2: memset(pool + to, (int)(r & 0xff), len); break;
      default: {
        msg* m = &msgs[r & 511];
        memcpy(m, pool + from, sizeof *m);
        msgs[(r >> 9) & 511] = *m;
        m->a += len;
        break;
      }
    }
    h = h * 31 + pool[(to + len / 2) % POOL];
  }
  for (int i = 0; i < 512; i++) h += msgs[i].a ^ msgs[i].d;
  return h;
}
BENCH_MAIN(run)
