/* Memory-heavy: quicksort + merge pass over 256 Ki 32-bit keys from an LCG. */
#include "bench.h"

#define COUNT 262144
static uint32_t keys[COUNT], tmp[COUNT];

static void quicksort(uint32_t* v, int lo, int hi) {
  while (lo < hi) {
    uint32_t pivot = v[(lo + hi) >> 1];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        uint32_t t = v[i];
        v[i] = v[j];
        v[j] = t;
        i++;
        j--;
      }
    }
    if (j - lo < hi - i) {
      quicksort(v, lo, j);
      lo = i;
    } else {
      quicksort(v, i, hi);
      hi = j;
    }
  }
}

static uint32_t run(void) {
  uint32_t x = 12345;
  for (int i = 0; i < COUNT; i++) {
    x = x * 1103515245u + 12345u;
    keys[i] = x ^ (x >> 13);
  }
  quicksort(keys, 0, COUNT - 1);
  /* merge the two sorted halves of a reversed copy, to stream memory once more */
  for (int i = 0; i < COUNT; i++) tmp[i] = keys[(i + COUNT / 2) % COUNT];
  uint32_t h = 0;
  for (int i = 1; i < COUNT; i++) h = h * 31 + (keys[i] >= keys[i - 1]) + (tmp[i] & 0xFF);
  return h;
}
BENCH_MAIN(run)
