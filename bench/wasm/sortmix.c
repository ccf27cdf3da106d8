/* Sorting mix: insertion sort of short runs, heap sort, a bottom-up merge sort of records by key
 * and a binary-search pass; comparisons, swaps and indexed loads of several shapes. */
#include <string.h>

#include "bench.h"

#define N 16384
typedef struct {
  uint32_t key;
  uint16_t id;
  uint16_t pad;
} rec;
static uint32_t a[N];
static rec r1[N], r2[N];

static void insertion(uint32_t* v, int n) {
  for (int i = 1; i < n; i++) {
    uint32_t x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

static void sift(uint32_t* v, int root, int n) {
  for (;;) {
    int c = 2 * root + 1;
    if (c >= n) return;
    if (c + 1 < n && v[c + 1] > v[c]) c++;
    if (v[root] >= v[c]) return;
    uint32_t t = v[root];
    v[root] = v[c];
    v[c] = t;
    root = c;
  }
}

static void heapsort(uint32_t* v, int n) {
  for (int i = n / 2 - 1; i >= 0; i--) sift(v, i, n);
  for (int i = n - 1; i > 0; i--) {
    uint32_t t = v[0];
    v[0] = v[i];
    v[i] = t;
    sift(v, 0, i);
  }
}

static void mergesort(rec* v, rec* tmp, int n) {
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = v[j].key < v[i].key ? v[j++] : v[i++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    memcpy(v, tmp, (size_t)n * sizeof *v);
  }
}

static int bsearch_u32(const uint32_t* v, int n, uint32_t x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static uint32_t run(void) {
  uint32_t h = 0;
  for (int rep = 0; rep < 6; rep++) {
    for (int i = 0; i < N; i++) a[i] = bench_rand() >> 4;
    for (int i = 0; i < N; i += 24) insertion(a + i, N - i < 24 ? N - i : 24);
    heapsort(a, N);
    for (int i = 0; i < N; i++) {
      r1[i].key = bench_rand() & 0xffff;
      r1[i].id = (uint16_t)i;
    }
    mergesort(r1, r2, N);
    for (int i = 0; i < N; i += 4) h = h * 31 + (uint32_t)bsearch_u32(a, N, a[i] ^ 0x55);
    for (int i = 0; i < N; i += 97) h += r1[i].id + a[i];
  }
  return h;
}
BENCH_MAIN(run)
