# Cross-compiling for the bare-metal Cortex-M4F target (build/mcu): Debian's arm-none-eabi
# GCC with newlib. It stands in for the boards' compilers in CI: 32-bit, int32_t = long,
# newlib, no MMU, small stacks, -Os. Tests run under qemu-system-arm (MPS2 AN386) with
# semihosting; see port/mcu/.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# The compiler cannot link a program without our start file and linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Debian's arm-none-eabi GCC puts its freestanding stdint.h before newlib's, and newlib's
# inttypes.h then leaves out the 64-bit PRI macros; ESP-IDF's toolchains use newlib's
# stdint.h. Including newlib's integer definitions first gives the same.
set(K32_MCU_CPU "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -include sys/_stdint.h")
# As the board build compiles: size-optimised, one section per function and object so the
# linker drops what is unused, no RTTI, no exceptions (ESP-IDF's default).
set(CMAKE_C_FLAGS_INIT "${K32_MCU_CPU} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${K32_MCU_CPU} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_CXX_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
# rdimon: newlib's semihosting system calls (console, host files, exit status).
set(CMAKE_EXE_LINKER_FLAGS_INIT "${K32_MCU_CPU} --specs=rdimon.specs -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(K32_PLATFORM mcu CACHE STRING "port/ folder this build uses" FORCE)
