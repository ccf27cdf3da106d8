// Forwarding header: the schema table and field validation live with the OpenAPI documents
// they are generated with (core/openapi/schema.h).
#pragma once
#include "core/openapi/schema.h"
