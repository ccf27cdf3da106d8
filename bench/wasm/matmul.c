/* Floating point: dense double-precision matrix multiply. */
#include "bench.h"

#define N 96
static double a[N][N], b[N][N], c[N][N];

static uint32_t run(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = (double)(i + j) / N;
      b[i][j] = (double)(i - j) / N;
    }
  for (int rep = 0; rep < 15; rep++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int k = 0; k < N; k++) s += a[i][k] * b[k][j];
        c[i][j] = s + c[i][j] * 0.5;
      }
  double t = 0;
  for (int i = 0; i < N; i++) t += c[i][i] + c[i][N - 1 - i];
  return (uint32_t)(int64_t)(t * 1000.0);
}
BENCH_MAIN(run)
