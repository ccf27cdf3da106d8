/* Float: a particle system in single precision (gravity, springs between neighbours, damping,
 * bouncing off the walls), integrated with semi-implicit Euler; the kind of loop a sensor
 * filter or a game tick runs. */
#include "bench.h"

#define N 256
static float px[N], py[N], vx[N], vy[N];

static uint32_t run(void) {
  for (int i = 0; i < N; i++) {
    px[i] = (float)(bench_rand() % 1000) / 10.0f;
    py[i] = (float)(bench_rand() % 1000) / 10.0f;
    vx[i] = vy[i] = 0.0f;
  }
  const float dt = 0.01f, k = 4.0f, rest = 1.5f, damp = 0.995f;
  for (int step = 0; step < 2000; step++) {
    for (int i = 0; i < N; i++) {
      int j = (i + 1) % N;
      float dx = px[j] - px[i], dy = py[j] - py[i];
      float d2 = dx * dx + dy * dy + 1e-3f;
      /* one Newton step of 1/sqrt from a rough guess keeps it libm-free and exact per IEEE */
      float inv = 1.0f / (1.0f + 0.5f * d2);
      inv = inv * (1.5f - 0.5f * d2 * inv * inv);
      float f = k * (1.0f - rest * inv);
      float fx = f * dx, fy = f * dy;
      vx[i] += fx * dt;
      vy[i] += fy * dt;
      vx[j] -= fx * dt;
      vy[j] -= fy * dt;
    }
    for (int i = 0; i < N; i++) {
      vy[i] -= 9.81f * dt;
      vx[i] *= damp;
      vy[i] *= damp;
      px[i] += vx[i] * dt;
      py[i] += vy[i] * dt;
      if (px[i] < 0.0f) {
        px[i] = -px[i];
        vx[i] = -vx[i];
      }
      if (px[i] > 100.0f) {
        px[i] = 200.0f - px[i];
        vx[i] = -vx[i];
      }
      if (py[i] < 0.0f) {
        py[i] = -py[i];
        vy[i] = -vy[i] * 0.9f;
      }
    }
  }
  float s = 0.0f;
  for (int i = 0; i < N; i++) s += px[i] * 3.0f + py[i];
  return (uint32_t)(int32_t)(s * 16.0f);
}
BENCH_MAIN(run)
