// Files on the bare-metal test target: the host's, through semihosting (newlib's stdio),
// relative to the directory qemu runs in. Semihosting cannot sync.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "port.h"
#include "semihost.h"

namespace k32 {
namespace port {

bool file_read(const char* path, char** data, size_t* len) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  std::string buf;
  char chunk[512];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.append(chunk, n);
  const bool ok = !std::ferror(f);
  std::fclose(f);
  if (!ok) return false;
  char* out = static_cast<char*>(mem_alloc(buf.size() + 1, Region::Any));
  if (!out) return false;
  buf.copy(out, buf.size());
  out[buf.size()] = 0;
  *data = out;
  *len = buf.size();
  return true;
}

bool file_write_atomic(const char* path, const void* data, size_t len) {
  const std::string tmp = std::string(path) + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, len, f) == len;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return false;
  }
  // newlib's rename() here is link+unlink, which semihosting lacks: ask the host directly.
  std::remove(path);  // a host rename need not replace an existing file
  const uint32_t args[4] = {reinterpret_cast<uint32_t>(tmp.c_str()), static_cast<uint32_t>(tmp.size()),
                            reinterpret_cast<uint32_t>(path), static_cast<uint32_t>(std::strlen(path))};
  return mcu::semihost(mcu::kSysRename, args) == 0;
}

bool file_append_sync(const char* path, const void* data, size_t len) {
  std::FILE* f = std::fopen(path, "ab");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, len, f) == len;
  return std::fclose(f) == 0 && ok;
}

bool file_remove(const char* path) { return std::remove(path) == 0; }

// Semihosting has no mkdir; it can run a host command (SYS_SYSTEM), which makes the folder.
// Only plain path characters are passed to the host shell.
bool dir_ensure(const char* path) {
  for (const char* c = path; *c; ++c)
    if (!std::isalnum(static_cast<unsigned char>(*c)) && !std::strchr("/._-", *c)) return false;
  const std::string cmd = std::string("mkdir -p '") + path + "'";
  const uint32_t args[2] = {reinterpret_cast<uint32_t>(cmd.c_str()), static_cast<uint32_t>(cmd.size())};
  return mcu::semihost(mcu::kSysSystem, args) == 0;
}

int64_t file_size(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return -1;
  int64_t size = -1;
  if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
  std::fclose(f);
  return size;
}

}  // namespace port
}  // namespace k32
