#!/bin/sh
# Runs one bare-metal test program in qemu's MPS2 AN386 (Cortex-M4F): semihosting gives it
# the console, host files (relative to the current directory), its arguments and the exit
# status, which becomes qemu's. Usage: qemu-run.sh PROGRAM.elf [ARGS...]
set -eu
elf="$1"
cfg="enable=on,target=native"
for a in "$@"; do
  # qemu's option syntax: a comma inside a value is written twice
  cfg="$cfg,arg=$(printf '%s' "$a" | sed 's/,/,,/g')"
done
exec qemu-system-arm -M mps2-an386 -cpu cortex-m4 -display none -monitor none -serial none \
  -semihosting-config "$cfg" -kernel "$elf"
