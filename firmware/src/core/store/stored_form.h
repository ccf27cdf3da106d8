// How the object store keeps one version of an object in memory: its compact JSON, with
// metadata.managedFields in a shorter form that reads back as the same entries.
//
// An entry {"manager","operation","apiVersion","time","fieldsType","fieldsV1","subresource"}
// becomes an array [manager, operation, apiVersion, time, fieldsType, fieldsV1(, subresource)]
// where the common values are small numbers (operation Update 1 / Apply 2, fieldsType
// FieldsV1 1, apiVersion 0 when it is the object's, time 0 when it is the object's
// creationTimestamp, null for a field the entry does not have), and the fieldsV1 trie is one
// string: "f:" keys without their prefix, other keys after '~', children in parentheses, e.g.
// {"f:data":{".":{},"f:a":{}}} -> "data(~.,a)". For a small object this is a third of
// managedFields' bytes. Entries with other fields or types are kept as they are (the whole
// list then stays plain), so any object reads back exactly as written. The files on disk
// always hold the plain form.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace store {
namespace stored_form {

// The bytes to keep for obj; *compact tells whether its managedFields were shortened (decode
// must be told the same).
std::string encode(const json::Value& obj, bool* compact);

// Parses what encode made back into the object (managedFields entries in Kubernetes' order
// of their fields). False only for bytes encode did not make.
bool decode(const std::string& bytes, bool compact, json::Value* out, json::ParseError* err);

}  // namespace stored_form
}  // namespace store
}  // namespace k32
