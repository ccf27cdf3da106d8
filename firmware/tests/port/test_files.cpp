// The port's durable files as the state store uses them, on the host's file system through
// the shared POSIX layer: nested folders made on demand, an atomic replace that leaves no
// temporary file, appends that accumulate, a missing file reported as missing, and a remove
// that treats an already-missing file as removed.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "check.h"
#include "port.h"

using namespace k32;

static std::string read_all(const std::string& path, bool* ok) {
  char* data = nullptr;
  size_t len = 0;
  *ok = port::file_read(path.c_str(), &data, &len);
  if (!*ok) return "";
  std::string s(data, len);
  CHECK_EQ(data[len], 0);  // callers parse the buffer as a C string
  port::mem_free(data);
  return s;
}

static bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

int main() {
  char base_tmpl[] = "/tmp/k32-files-XXXXXX";
  const char* base = ::mkdtemp(base_tmpl);
  CHECK(base != nullptr);
  if (!base) TEST_MAIN_END();
  const std::string dir = std::string(base) + "/state/deep";
  const std::string file = dir + "/snapshot.json";
  bool ok = false;

  CHECK(port::dir_ensure(dir.c_str()));
  CHECK(port::dir_ensure(dir.c_str()));  // again: the folders exist, which is fine
  CHECK(exists(dir));

  read_all(file, &ok);
  CHECK(!ok);
  CHECK_EQ(port::file_size(file.c_str()), -1);

  CHECK(port::file_write_atomic(file.c_str(), "first", 5));
  CHECK(port::file_write_atomic(file.c_str(), "second!", 7));
  CHECK_EQ(read_all(file, &ok), std::string("second!"));
  CHECK(ok);
  CHECK_EQ(port::file_size(file.c_str()), 7);
  CHECK(!exists(file + ".tmp"));

  const std::string wal = dir + "/wal.log";
  CHECK(port::file_append_sync(wal.c_str(), "a\n", 2));
  CHECK(port::file_append_sync(wal.c_str(), "bc\n", 3));
  CHECK_EQ(read_all(wal, &ok), std::string("a\nbc\n"));

  const std::string empty = dir + "/empty";
  CHECK(port::file_write_atomic(empty.c_str(), "", 0));
  CHECK_EQ(read_all(empty, &ok), std::string());
  CHECK(ok);

  // A write into a folder that does not exist fails and leaves nothing behind.
  const std::string nowhere = std::string(base) + "/missing/x.json";
  CHECK(!port::file_write_atomic(nowhere.c_str(), "x", 1));
  CHECK(!exists(nowhere + ".tmp"));

  CHECK(port::file_remove(wal.c_str()));
  CHECK(!exists(wal));
  CHECK(port::file_remove(wal.c_str()));  // already gone counts as removed

  for (const std::string& f : {file, empty}) port::file_remove(f.c_str());
  ::rmdir(dir.c_str());
  ::rmdir((std::string(base) + "/state").c_str());
  ::rmdir(base);
  TEST_MAIN_END();
}
