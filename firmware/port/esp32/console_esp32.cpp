// The console on the board's primary console port (sdkconfig: UART0 or USB Serial/JTAG).
// ESP-IDF's default console VFS does not block on reads; with the driver installed, stdin
// blocks until a line arrives, so the portable console (core/console) reads K32_CMD lines
// from stdin exactly as in the simulator.
#include <cstdio>

#include "esp32_internal.h"
#include "k32_board.h"
#include "sdkconfig.h"
#if CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG
#include "driver/usb_serial_jtag.h"
#include "driver/usb_serial_jtag_vfs.h"
#else
#include "driver/uart.h"
#include "driver/uart_vfs.h"
#endif

namespace k32 {
namespace port {
namespace esp32 {

namespace {
constexpr int kRxBuffer = static_cast<int>(K32_CONSOLE_UART_BUFFER);
constexpr int kTxBuffer = static_cast<int>(K32_CONSOLE_UART_BUFFER);
}  // namespace

bool console_init() {
  // No stdio buffering on stdin: a command is answered as soon as its line ends.
  std::setvbuf(stdin, nullptr, _IONBF, 0);
#if CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG
  usb_serial_jtag_driver_config_t cfg = USB_SERIAL_JTAG_DRIVER_CONFIG_DEFAULT();
  cfg.rx_buffer_size = kRxBuffer;
  cfg.tx_buffer_size = kTxBuffer;
  if (usb_serial_jtag_driver_install(&cfg) != ESP_OK) return false;
  usb_serial_jtag_vfs_set_rx_line_endings(ESP_LINE_ENDINGS_CR);
  usb_serial_jtag_vfs_use_driver();
  return true;
#else
  const int uart = CONFIG_ESP_CONSOLE_UART_NUM;
  if (uart_driver_install(static_cast<uart_port_t>(uart), kRxBuffer, kTxBuffer, 0, nullptr, 0) != ESP_OK) return false;
  // Terminals send CR for Enter; the console parser wants lines ending in LF.
  uart_vfs_dev_port_set_rx_line_endings(uart, ESP_LINE_ENDINGS_CR);
  uart_vfs_dev_use_driver(uart);
  return true;
#endif
}

}  // namespace esp32
}  // namespace port
}  // namespace k32
