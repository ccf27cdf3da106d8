/* String processing: builds log-like lines with a hand-written itoa, splits them into words,
 * upper-cases, reverses, counts a substring with a naive search and compares words with a
 * strcmp-style loop: byte loads and stores, short data-dependent loops. */
#include "bench.h"

#define LINE 256
static char line[LINE], word[64], prev[64];

static int utoa(char* o, uint32_t v) {
  char t[12];
  int n = 0, k = 0;
  do {
    t[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) o[k++] = t[--n];
  return k;
}

static int cpy(char* o, const char* s) {
  int k = 0;
  while (s[k]) {
    o[k] = s[k];
    k++;
  }
  return k;
}

static int cmp(const char* a, const char* b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return (unsigned char)*a - (unsigned char)*b;
}

static int count(const char* hay, const char* needle) {
  int n = 0;
  for (int i = 0; hay[i]; i++) {
    int k = 0;
    while (needle[k] && hay[i + k] == needle[k]) k++;
    if (!needle[k]) n++;
  }
  return n;
}

static const char* const names[] = {"echo", "nginx-edge", "sensor", "kube-proxy", "db", "web-7f9c"};

static uint32_t run(void) {
  uint32_t h = 0;
  for (int rep = 0; rep < 18000; rep++) {
    uint32_t r = bench_rand();
    int at = cpy(line, "pod ");
    at += cpy(line + at, names[r % 6]);
    at += cpy(line + at, " restarted ");
    at += utoa(line + at, r >> 8);
    at += cpy(line + at, " times, exit code ");
    at += utoa(line + at, r & 255);
    at += cpy(line + at, " on node node-");
    at += utoa(line + at, (r >> 3) & 15);
    line[at] = 0;
    h += (uint32_t)count(line, "od") * 7 + (uint32_t)count(line, "e");
    /* words: upper-case, reverse, compare with the previous word */
    for (int i = 0; line[i];) {
      while (line[i] == ' ') i++;
      int n = 0;
      while (line[i] && line[i] != ' ' && n < 63) {
        char c = line[i++];
        word[n++] = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
      }
      word[n] = 0;
      for (int a = 0, b = n - 1; a < b; a++, b--) {
        char t = word[a];
        word[a] = word[b];
        word[b] = t;
      }
      int c = cmp(word, prev);
      h = h * 33 + (uint32_t)(c < 0 ? 1 : c > 0 ? 2 : 3) + (uint32_t)n;
      cpy(prev, word);
      prev[n] = 0;
    }
  }
  return h;
}
BENCH_MAIN(run)
