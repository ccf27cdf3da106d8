"""Reports over the bare-metal Cortex-M4 build (build/mcu): code size and stack bounds."""
