// Reset: copy .data, clear .bss, then newlib's _start (semihosting set-up, constructors,
// main, exit with main's status). Plain C: the vector table must exist before any C++ runs.
#include <string.h>

extern unsigned __etext, __data_start__, __data_end__, __bss_start__, __bss_end__, __stack;
extern void _start(void);

void Reset_Handler(void) {
  // The FPU is off after reset; the hard-float code faults on its first float instruction.
  *(volatile unsigned*)0xE000ED88u |= 0xFu << 20;  // CPACR: full access to CP10 and CP11
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  memcpy(&__data_start__, &__etext, (size_t)((char*)&__data_end__ - (char*)&__data_start__));
  memset(&__bss_start__, 0, (size_t)((char*)&__bss_end__ - (char*)&__bss_start__));
  _start();
  for (;;) {}
}

// A fault has no one to report to but the host: exit through semihosting with a failure.
void Fault_Handler(void) {
  static const char msg[] = "k32 mcu: processor fault\n";
  register unsigned r0 __asm__("r0") = 0x04;  // SYS_WRITE0
  register const char* r1 __asm__("r1") = msg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  register unsigned e0 __asm__("r0") = 0x18;     // SYS_EXIT
  register unsigned e1 __asm__("r1") = 0x20024;  // ADP_Stopped_RunTimeErrorUnknown
  __asm__ volatile("bkpt 0xab" : "+r"(e0) : "r"(e1) : "memory");
  for (;;) {}
}

__attribute__((section(".isr_vector"), used)) void (*const k32_vectors[16])(void) = {
    (void (*)(void)) & __stack, Reset_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler};
