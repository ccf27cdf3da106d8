// Endpoints: computed on each read from Services and the pods they select (endpoints_view),
// never stored or written; kubectl's columns.
#include "core/api/kinds/kind_strategy.h"
#include "core/api/endpoints_view.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

std::string endpoints_summary(const json::Value& e) {
  std::vector<std::string> out;
  size_t total = 0;
  for (const auto& ss : e["subsets"].items()) {
    for (const auto& a : ss["addresses"].items()) {
      for (const auto& p : ss["ports"].items()) {
        ++total;
        if (out.size() < 3) out.push_back(a["ip"].str() + ":" + json::dump(p["port"]));
      }
      if (ss["ports"].items().empty()) {
        ++total;
        if (out.size() < 3) out.push_back(a["ip"].str());
      }
    }
  }
  if (out.empty()) return "<none>";
  std::string s = join(out, ",");
  if (total > out.size()) s += " + " + text::to_string(static_cast<int64_t>(total - out.size())) + " more...";
  return s;
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Endpoints", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(endpoints_summary(o)); }},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kEndpointsKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/false,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    /*defaults=*/nullptr,
    /*validate=*/nullptr,
    /*validate_update=*/nullptr,
    /*grace_period=*/nullptr,
    /*mark_terminating=*/nullptr,
    compute_endpoints,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
