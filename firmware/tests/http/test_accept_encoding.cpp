// Accept-Encoding: q=0 refuses a coding, an explicit entry wins over "*".
#include <string>

#include "check.h"
#include "core/http/accept_encoding.h"

static bool gz(const char* header) {
  std::string h = header;
  return k32::http::accepts_encoding(&h, "gzip");
}

int main() {
  CHECK(!k32::http::accepts_encoding(nullptr, "gzip"));
  CHECK(gz("gzip"));
  CHECK(gz("gzip, deflate, br"));
  CHECK(gz("deflate;q=0.5, GZIP;q=0.8"));
  CHECK(!gz("gzip;q=0"));
  CHECK(!gz("gzip; q=0.000"));
  CHECK(!gz("identity"));
  CHECK(!gz("x-gzip-not"));
  CHECK(gz("*"));
  CHECK(!gz("*;q=0"));
  CHECK(!gz("*, gzip;q=0"));
  CHECK(gz("*;q=0, gzip"));
  CHECK(!gz("gzip;q=abc"));
  CHECK(!gz(""));
  TEST_MAIN_END();
}
