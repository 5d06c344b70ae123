// JsonNode: the public JsonView's handle on a json::Value (the same object, reinterpreted).
#pragma once

#include <type_traits>

#include "json/value.h"
#include "slipstream/json_view.h"

namespace slipstream::detail {

/// A standard-layout struct whose only member is the Value, so a `const json::Value*` and a
/// `const JsonNode*` to the same address are pointer-interconvertible ([basic.compound]/4): the
/// Value trees built in request arenas are handed to JsonView without copying or wrapping.
struct JsonNode {
    json::Value value;
};

static_assert(std::is_standard_layout_v<JsonNode>);
static_assert(sizeof(JsonNode) == sizeof(json::Value));

/// The node view of a value (nullptr stays nullptr).
inline const JsonNode* as_node(const json::Value* v) {
    return reinterpret_cast<const JsonNode*>(v);
}

/// A JsonView of a value owned elsewhere.
inline JsonView view_of(const json::Value* v) {
    return JsonView(as_node(v));
}

}  // namespace slipstream::detail
