#include "core/http/accept_encoding.h"

#include <cstdlib>

#include "core/util/text.h"

namespace k32 {
namespace http {

namespace {
// q-value of one list element ("gzip;q=0.5" -> 0.5); 1 when absent, 0 when unparsable.
double q_of(const std::vector<std::string>& params) {
  for (size_t i = 1; i < params.size(); ++i) {
    std::string p = text::lower(text::trim(params[i]));
    if (p.size() < 2 || p[0] != 'q' || p[1] != '=') continue;
    std::string v = text::trim(p.substr(2));
    if (v.empty() || v.size() > 5) return 0;
    char* end = nullptr;
    double q = std::strtod(v.c_str(), &end);
    if (!end || *end != '\0' || q < 0 || q > 1) return 0;
    return q;
  }
  return 1;
}
}  // namespace

bool accepts_encoding(const std::string* header, const char* coding) {
  if (!header) return false;
  std::string want = text::lower(coding);
  bool have_exact = false, exact_ok = false, star_ok = false;
  for (const std::string& item : text::split(*header, ',')) {
    std::vector<std::string> params = text::split(item, ';');
    std::string name = text::lower(text::trim(params[0]));
    double q = q_of(params);
    if (name == want) {
      have_exact = true;
      exact_ok = q > 0;
    } else if (name == "*") {
      star_ok = q > 0;
    }
  }
  return have_exact ? exact_ok : star_ok;
}

}  // namespace http
}  // namespace k32
