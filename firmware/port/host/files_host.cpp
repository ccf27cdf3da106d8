// Durable files for the state store on the host's file system (ext4 and the like): the shared
// POSIX layer, with close-on-exec descriptors, fdatasync for appended records and a synced
// directory after a rename (such file systems make a rename durable only then).
#include <fcntl.h>
#include <unistd.h>

#include "port.h"
#include "posix/files_posix.h"

namespace k32 {
namespace port {
namespace {

int data_sync(int fd) { return ::fdatasync(fd); }

const posix::FileSystem kHostFiles{O_CLOEXEC, data_sync, true};

}  // namespace

bool file_read(const char* path, char** data, size_t* len) { return posix::read_whole(kHostFiles, path, data, len); }

bool file_write_atomic(const char* path, const void* data, size_t len) {
  return posix::write_atomic(kHostFiles, path, data, len);
}

bool file_append_sync(const char* path, const void* data, size_t len) { return posix::append_sync(kHostFiles, path, data, len); }

bool file_remove(const char* path) { return posix::remove(path); }

bool dir_ensure(const char* path) { return posix::dir_ensure(path); }

int64_t file_size(const char* path) { return posix::size(path); }

}  // namespace port
}  // namespace k32
