/* Recursion: N-queens by backtracking, a binary tree built, summed and freed recursively from a
 * pool, and Ackermann(2, n): deep call chains with small frames and several arguments. */
#include "bench.h"

static int queens(int row, int n, uint32_t cols, uint32_t d1, uint32_t d2) {
  if (row == n) return 1;
  int count = 0;
  for (uint32_t avail = ~(cols | d1 | d2) & ((1u << n) - 1); avail; avail &= avail - 1) {
    uint32_t bit = avail & -avail;
    count += queens(row + 1, n, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
  }
  return count;
}

typedef struct node {
  struct node *l, *r;
  uint32_t v;
} node;
static node pool[1 << 16];
static int used;

static node* build(int depth, uint32_t v) {
  node* t = &pool[used++];
  t->v = v;
  t->l = depth ? build(depth - 1, v * 2 + 1) : 0;
  t->r = depth ? build(depth - 1, v * 3 + 7) : 0;
  return t;
}

static uint32_t walk(const node* t, int depth) {
  return t ? t->v ^ (walk(t->l, depth + 1) * 3 + walk(t->r, depth + 1) + (uint32_t)depth) : 0;
}

static uint32_t ack(uint32_t m, uint32_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static volatile int kQueens = 9, kDepth = 14;

static uint32_t run(void) {
  uint32_t h = 0;
  for (int rep = 0; rep < 4; rep++) h = h * 7 + (uint32_t)queens(0, kQueens, 0, 0, 0);
  for (int rep = 0; rep < 12; rep++) {
    used = 0;
    h += walk(build(kDepth, (uint32_t)rep), 0);
  }
  for (uint32_t n = 0; n < 300; n += 3) h ^= ack(2, n + (uint32_t)(kDepth & 1)) << (n & 7);
  return h;
}
BENCH_MAIN(run)
