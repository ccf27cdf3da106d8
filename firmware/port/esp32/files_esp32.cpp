// Durable files on the LittleFS data partition (mounted by storage_esp32.cpp through the VFS,
// so the shared POSIX layer reaches it). LittleFS commits a file on fsync/close and replaces
// on rename atomically, which is what file_write_atomic promises, so no directory is synced.
// The node's settings file is the exception: it lives in NVS (settings_nvs_esp32.cpp) so
// re-flashing the data partition keeps the token and the Wi-Fi credentials.
#include <unistd.h>

#include "esp32_internal.h"
#include "port.h"
#include "posix/files_posix.h"

namespace k32 {
namespace port {
namespace {

int data_sync(int fd) { return ::fsync(fd); }  // the VFS has no fdatasync

const posix::FileSystem kLittleFs{0, data_sync, false};

}  // namespace

bool file_read(const char* path, char** data, size_t* len) {
  if (esp32::is_settings_path(path)) return esp32::settings_read(data, len);
  return posix::read_whole(kLittleFs, path, data, len);
}

bool file_write_atomic(const char* path, const void* data, size_t len) {
  if (esp32::is_settings_path(path)) return esp32::settings_write(data, len);
  return posix::write_atomic(kLittleFs, path, data, len);
}

bool file_append_sync(const char* path, const void* data, size_t len) { return posix::append_sync(kLittleFs, path, data, len); }

bool file_remove(const char* path) {
  if (esp32::is_settings_path(path)) return esp32::settings_write(nullptr, 0);
  return posix::remove(path);
}

bool dir_ensure(const char* path) { return posix::dir_ensure(path); }

int64_t file_size(const char* path) { return posix::size(path); }

}  // namespace port
}  // namespace k32
