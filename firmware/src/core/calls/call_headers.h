// The caller's "Name: value\r\n" header lines and which of them are forwarded: to a pod
// only Content-Type, Cookie, X-Request-Id and Accept-Encoding (the rest is the caller's
// business, not the callee's); to an outside host all but X-Kube32-* and the headers the
// connection itself owns (Host, Content-Length, Connection, Transfer-Encoding, ...).
#pragma once
#include <string>
#include <vector>

#include "core/http/http_message.h"

namespace k32 {
namespace calls {

// Parses header lines (each "Name: value" ended by CRLF; a missing final CRLF is
// tolerated). False with *err for a line without a name, a bad name, or a CR/LF inside.
bool parse_call_headers(const std::string& text, std::vector<http::Header>* out, std::string* err);

// Pods behind a Service get only Content-Type, Cookie, X-Request-Id and Accept-Encoding.
std::vector<http::Header> headers_for_pod(const std::vector<http::Header>& in);
// Outside hosts get every header except X-Kube32-* and those the connection owns.
std::vector<http::Header> headers_for_outside(const std::vector<http::Header>& in);

bool header_name_is(const std::string& name, const char* want);

}  // namespace calls
}  // namespace k32
