// Durable files on the LittleFS data partition (mounted by storage_esp32.cpp through the VFS,
// so the POSIX calls reach it). LittleFS commits a file on fsync/close and replaces on
// rename atomically, which is what file_write_atomic promises. The node's settings file is
// the exception: it lives in NVS (settings_nvs_esp32.cpp) so re-flashing the data partition
// keeps the token and the Wi-Fi credentials.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "port.h"
#include "esp32_internal.h"

namespace k32 {
namespace port {

namespace {

bool write_all(int fd, const void* data, size_t len) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t w = ::write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    len -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

bool file_read(const char* path, char** data, size_t* len) {
  if (esp32::is_settings_path(path)) return esp32::settings_read(data, len);
  int fd = ::open(path, O_RDONLY);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  size_t size = static_cast<size_t>(st.st_size);
  char* buf = static_cast<char*>(mem_alloc(size + 1, Region::Psram));
  if (!buf) {
    ::close(fd);
    return false;
  }
  size_t got = 0;
  while (got < size) {
    ssize_t r = ::read(fd, buf + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  buf[got] = 0;
  *data = buf;
  *len = got;
  return true;
}

bool file_write_atomic(const char* path, const void* data, size_t len) {
  if (esp32::is_settings_path(path)) return esp32::settings_write(data, len);
  std::string tmp = std::string(path) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return false;
  bool ok = write_all(fd, data, len) && ::fsync(fd) == 0;
  ::close(fd);
  // LittleFS renames over an existing file atomically; its directories need no fsync.
  if (!ok || ::rename(tmp.c_str(), path) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool file_append_sync(const char* path, const void* data, size_t len) {
  int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd < 0) return false;
  bool ok = write_all(fd, data, len) && ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

bool file_remove(const char* path) {
  if (esp32::is_settings_path(path)) return esp32::settings_write(nullptr, 0);
  return ::unlink(path) == 0 || errno == ENOENT;
}

bool dir_ensure(const char* path) {
  std::string p(path);
  for (size_t i = 1; i <= p.size(); ++i) {
    if (i == p.size() || p[i] == '/') {
      std::string part = p.substr(0, i);
      struct stat st;
      if (::stat(part.c_str(), &st) == 0) continue;  // the mount point itself is not mkdir-able
      if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

int64_t file_size(const char* path) {
  struct stat st;
  if (::stat(path, &st) != 0) return -1;
  return static_cast<int64_t>(st.st_size);
}

}  // namespace port
}  // namespace k32
