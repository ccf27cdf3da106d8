/* A CoreMark-like mix (written here, same ingredients, not CoreMark itself): linked-list find,
 * reverse and merge sort; a small integer matrix multiply, add and bit extraction; a
 * number-recognising state machine over a generated string; everything folded into a CRC-16. */
#include "bench.h"

typedef struct item {
  struct item* next;
  int16_t data, idx;
} item;
#define NITEMS 64
#define MN 12
static item items[NITEMS];
static int16_t ma[MN * MN], mb[MN * MN];
static int32_t mc[MN * MN];
static char text[180];

static uint16_t crc16(uint32_t v, uint16_t crc) {
  for (int i = 0; i < 32; i++) {
    uint16_t x = (uint16_t)((v ^ crc) & 1);
    v >>= 1;
    crc = x ? (uint16_t)(((crc ^ 0x4002) >> 1) | 0x8000) : (uint16_t)(crc >> 1);
  }
  return crc;
}

static item* reverse(item* l) {
  item* r = 0;
  while (l) {
    item* n = l->next;
    l->next = r;
    r = l;
    l = n;
  }
  return r;
}

static item* find(item* l, int16_t data) {
  while (l && l->data != data) l = l->next;
  return l;
}

static item* lsort(item* list, int by_idx) {
  for (int k = 1;; k *= 2) {
    item *p = list, *tail = 0;
    list = 0;
    int merges = 0;
    while (p) {
      merges++;
      item* q = p;
      int ps = 0, qs = k;
      while (ps < k && q) {
        ps++;
        q = q->next;
      }
      while (ps > 0 || (qs > 0 && q)) {
        item* e;
        if (ps == 0) {
          e = q;
          q = q->next;
          qs--;
        } else if (qs == 0 || !q) {
          e = p;
          p = p->next;
          ps--;
        } else if ((by_idx ? p->idx - q->idx : p->data - q->data) <= 0) {
          e = p;
          p = p->next;
          ps--;
        } else {
          e = q;
          q = q->next;
          qs--;
        }
        if (tail) tail->next = e;
        else list = e;
        tail = e;
      }
      p = q;
    }
    tail->next = 0;
    if (merges <= 1) return list;
  }
}

static uint16_t matrix(int16_t k) {
  for (int i = 0; i < MN * MN; i++) ma[i] = (int16_t)(ma[i] + k);
  for (int i = 0; i < MN; i++)
    for (int j = 0; j < MN; j++) {
      int32_t s = 0;
      for (int x = 0; x < MN; x++) s += (int32_t)ma[i * MN + x] * mb[x * MN + j];
      mc[i * MN + j] = s;
    }
  uint16_t crc = 0;
  for (int i = 0; i < MN * MN; i++) crc = crc16((uint32_t)((mc[i] >> 2) & 0xf) * (uint32_t)(mc[i] > 0 ? 1 : 2), crc);
  return crc;
}

enum { S_START, S_INT, S_FRAC, S_EXP, S_SCI, S_BAD };
static uint16_t scan(void) {
  uint32_t counts[6] = {0};
  int st = S_START;
  for (int i = 0; text[i]; i++) {
    char c = text[i];
    if (c == ',') {
      counts[st]++;
      st = S_START;
      continue;
    }
    switch (st) {
      case S_START: st = c >= '0' && c <= '9' ? S_INT : c == '.' ? S_FRAC : (c == '+' || c == '-') ? S_INT : S_BAD; break;
      case S_INT: st = c >= '0' && c <= '9' ? S_INT : c == '.' ? S_FRAC : c == 'e' ? S_EXP : S_BAD; break;
      case S_FRAC: st = c >= '0' && c <= '9' ? S_FRAC : c == 'e' ? S_EXP : S_BAD; break;
      case S_EXP: st = c == '+' || c == '-' || (c >= '0' && c <= '9') ? S_SCI : S_BAD; break;
      case S_SCI: st = c >= '0' && c <= '9' ? S_SCI : S_BAD; break;
      default: break;
    }
  }
  uint16_t crc = 0;
  for (int i = 0; i < 6; i++) crc = crc16(counts[i], crc);
  return crc;
}

static uint32_t run(void) {
  static const char* const pieces[] = {"5012",     "1234",     "-874",     "+122",     "35.54400", ".1234500",
                                       "-110.700", "+0.64400", "5.500e+3", "-.123e-2", "-87e+832", "+0.6e-12",
                                       "T0.3e-1F", "-T.T++Tq", "1T3.4e4z", "34.0e-T^"};
  int at = 0;
  for (int i = 0; at < 170; i++) {
    const char* p = pieces[bench_rand() & 15];
    while (*p && at < 170) text[at++] = *p++;
    text[at++] = ',';
  }
  text[at] = 0;
  for (int i = 0; i < MN * MN; i++) {
    ma[i] = (int16_t)(bench_rand() & 0xff);
    mb[i] = (int16_t)(bench_rand() & 0xff);
  }
  item* list = 0;
  for (int i = 0; i < NITEMS; i++) {
    items[i].data = (int16_t)(bench_rand() & 0x7fff);
    items[i].idx = (int16_t)i;
    items[i].next = list;
    list = &items[i];
  }
  uint16_t crc = 0;
  for (int it = 0; it < 1200; it++) {
    for (int f = 0; f < 8; f++) {
      item* hit = find(list, items[(it * 7 + f * 13) % NITEMS].data);
      crc = crc16(hit ? (uint32_t)hit->idx : 0xffffu, crc);
    }
    list = reverse(list);
    list = lsort(list, it & 1);
    crc = crc16(list->data, crc);
    crc = crc16(matrix((int16_t)(it & 7)), crc);
    text[it % 170] ^= (char)(it & 1);
    crc = crc16(scan(), crc);
  }
  return crc;
}
BENCH_MAIN(run)
