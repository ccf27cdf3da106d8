"""A test double of the ESP32 / ESP32-S3 ROM serial bootloader: it stands in for a real chip
when `k32 flash` (through the real esptool) is tested without a board. It writes into a
flash-image file and is served on socket:// or a pty (`python -m k32.testing.esprom`)."""
