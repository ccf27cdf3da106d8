// The durable-file layer for ports whose file system speaks POSIX (the simulator's host file
// system, ESP-IDF's VFS over LittleFS). Each port's port::file_* functions forward here, after
// handling any path it keeps elsewhere, and say how their file system wants to be used.
#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
namespace port {
namespace posix {

struct FileSystem {
  // Added to every open(): O_CLOEXEC where the process may exec, 0 where the VFS knows no such
  // flag.
  int open_flags;
  // Makes an appended record durable: fdatasync where it exists (the record, not the file's
  // times), else fsync.
  int (*sync_data)(int fd);
  // Whether a rename is durable only once its directory is synced (ext4 and friends); LittleFS
  // commits a rename by itself.
  bool sync_dir_after_rename;
};

// The whole file into a buffer from mem_alloc (NUL-terminated, freed with mem_free).
bool read_whole(const FileSystem& fs, const char* path, char** data, size_t* len);
// Writes path.tmp, syncs it and renames it over path: a reader sees the old or the new bytes.
bool write_atomic(const FileSystem& fs, const char* path, const void* data, size_t len);
// Appends and syncs before returning: an acknowledged record survives a power cut.
bool append_sync(const FileSystem& fs, const char* path, const void* data, size_t len);
// Removes path; a path that is already gone counts as removed.
bool remove(const char* path);
// Creates every missing folder on the way to path (an existing one, such as a mount point
// that cannot be mkdir'ed, is left alone).
bool dir_ensure(const char* path);
// The file's size, or -1 when it cannot be read.
int64_t size(const char* path);

}  // namespace posix
}  // namespace port
}  // namespace k32
