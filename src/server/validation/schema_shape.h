// Static facts about a parameter's JSON Schema document, read once at compile time.
#pragma once

#include "json/value.h"

namespace slipstream::server::detail {

/// True when coercion turns the parameter's occurrences into an array: the schema accepts "array" and
/// not "string" (from `type`, intersected through allOf, united through anyOf/oneOf), as coerce() decides.
/// `$ref` is not followed (the Python front end sends self-contained schemas): it counts as any type.
bool coerces_to_list(const json::Value& schema);

}  // namespace slipstream::server::detail
