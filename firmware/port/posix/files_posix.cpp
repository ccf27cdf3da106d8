// Durable files on a POSIX file system: a write is acknowledged only after it is synced.
#include "posix/files_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "port.h"

namespace k32 {
namespace port {
namespace posix {
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

void sync_parent_dir(const FileSystem& fs, const char* path) {
  std::string dir(path);
  size_t slash = dir.rfind('/');
  dir = slash == std::string::npos ? "." : dir.substr(0, slash ? slash : 1);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | fs.open_flags);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

bool read_whole(const FileSystem& fs, const char* path, char** data, size_t* len) {
  int fd = ::open(path, O_RDONLY | fs.open_flags);
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

bool write_atomic(const FileSystem& fs, const char* path, const void* data, size_t len) {
  std::string tmp = std::string(path) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | fs.open_flags, 0600);
  if (fd < 0) return false;
  bool ok = write_all(fd, data, len) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  if (fs.sync_dir_after_rename) sync_parent_dir(fs, path);
  return true;
}

bool append_sync(const FileSystem& fs, const char* path, const void* data, size_t len) {
  int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | fs.open_flags, 0600);
  if (fd < 0) return false;
  bool ok = write_all(fd, data, len) && fs.sync_data(fd) == 0;
  ::close(fd);
  return ok;
}

bool remove(const char* path) { return ::unlink(path) == 0 || errno == ENOENT; }

bool dir_ensure(const char* path) {
  std::string p(path);
  for (size_t i = 1; i <= p.size(); ++i) {
    if (i == p.size() || p[i] == '/') {
      std::string part = p.substr(0, i);
      struct stat st;
      if (::stat(part.c_str(), &st) == 0) continue;
      if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

int64_t size(const char* path) {
  struct stat st;
  if (::stat(path, &st) != 0) return -1;
  return static_cast<int64_t>(st.st_size);
}

}  // namespace posix
}  // namespace port
}  // namespace k32
