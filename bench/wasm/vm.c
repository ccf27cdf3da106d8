/* Byte-code interpreter: a small stack VM (switch dispatch) running a program that counts primes
 * by trial division and sums a Collatz walk: the loop shape of every embedded scripting engine. */
#include "bench.h"

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, DIV, LT, EQ, JZ, JMP, INC, DUP, DROP, HALT };

static int32_t code_[] = {
    /* for (n = 2; n < N; n++) { for (d = 2; d * d <= n && n % d; d++); if (d*d > n) count++; } */
    PUSH, 2, STORE, 0,                                    /* 0: n = 2 */
    LOAD, 0, LOAD,  3,   LT,   JZ,   52,                  /* 4: while n < N */
    PUSH, 2, STORE, 1,                                    /* 11: d = 2 */
    LOAD, 1, DUP,   MUL, LOAD, 0,    LT,                  /* 15: d*d < n+1 */
    LOAD, 1, LOAD,  1,   MUL,  LOAD, 0,  EQ, ADD, JZ, 44, /* 22: d*d <= n, else prime */
    LOAD, 0, LOAD,  1,   MOD,  JZ,   48,                  /* 33: n % d == 0 -> composite */
    INC,  1, JMP,   15,                                   /* 40 */
    INC,  2, JMP,   48,                                   /* 44: prime */
    INC,  0, JMP,   4,                                    /* 48 */
    HALT};

static int32_t run_vm(const int32_t* code, int32_t* var) {
  int32_t stack[64], sp = 0, pc = 0;
  for (;;) {
    int32_t op = code[pc++];
    switch (op) {
      case PUSH: stack[sp++] = code[pc++]; break;
      case LOAD: stack[sp++] = var[code[pc++]]; break;
      case STORE: var[code[pc++]] = stack[--sp]; break;
      case ADD:
        sp--;
        stack[sp - 1] += stack[sp];
        break;
      case SUB:
        sp--;
        stack[sp - 1] -= stack[sp];
        break;
      case MUL:
        sp--;
        stack[sp - 1] *= stack[sp];
        break;
      case MOD:
        sp--;
        stack[sp - 1] %= stack[sp];
        break;
      case DIV:
        sp--;
        stack[sp - 1] /= stack[sp];
        break;
      case LT:
        sp--;
        stack[sp - 1] = stack[sp - 1] < stack[sp];
        break;
      case EQ:
        sp--;
        stack[sp - 1] = stack[sp - 1] == stack[sp];
        break;
      case JZ: {
        int32_t t = code[pc++];
        if (!stack[--sp]) pc = t;
        break;
      }
      case JMP: pc = code[pc]; break;
      case INC: var[code[pc++]]++; break;
      case DUP:
        stack[sp] = stack[sp - 1];
        sp++;
        break;
      case DROP: sp--; break;
      default: return sp ? stack[sp - 1] : 0;
    }
  }
}

/* Collatz steps, a second program assembled at run time */
static int32_t collatz[] = {LOAD, 0, PUSH, 1, EQ,  JZ,    8,  HALT,                             /* 0: while x != 1 */
                            LOAD, 0, PUSH, 2, MOD, JZ,    29,                                   /* 8: even -> 29 */
                            LOAD, 0, PUSH, 3, MUL, PUSH,  1,  ADD,  STORE, 0,   INC, 1, JMP, 0, /* 15: x = 3x+1 */
                            LOAD, 0, PUSH, 2, DIV, STORE, 0,  INC,  1,     JMP, 0};             /* 29: x /= 2 */

static uint32_t run(void) {
  int32_t var[4] = {0, 0, 0, 0};
  var[3] = 4000 + (int32_t)(bench_seed & 1);
  run_vm(code_, var);
  uint32_t h = (uint32_t)var[2];
  for (int32_t x0 = 1; x0 < 2500; x0++) {
    int32_t cv[4] = {x0, 0, 0, 0};
    run_vm(collatz, cv);
    h = h * 31 + (uint32_t)cv[1];
  }
  return h;
}
BENCH_MAIN(run)
