// Node::validate: runs a schema object's keywords, manages depth, dynamic scope and annotations.
#include "json/schema/node.h"

namespace slipstream::json::schema::detail {

SLIPSTREAM_SCHEMA_STACK_FRAMES_BEGIN
bool Node::validate_nested(const json::Value& v, Context& ctx, Annotations* ann) const {
    if (kind_ == Kind::kTrue) return true;
    if (kind_ == Kind::kFalse) {
        if (ctx.sink()) ctx.report(location_, "false_schema", "No value is permitted here", v);
        return false;
    }
    if (ctx.too_deep()) return too_deep(v, ctx);
    ++ctx.depth;
    const ScopeFrame* saved = ctx.scope;
    ScopeFrame frame{resource_, saved};
    if (saved == nullptr || saved->resource != resource_) ctx.scope = &frame;
    bool ok;
    // A node with unevaluated* collects its own annotations unless an enclosing one already does.
    if (ann == nullptr && ((tracks_properties_ && v.is_object()) || (tracks_items_ && v.is_array()))) {
        Annotations local(v.size());
        ok = run(v, ctx, &local);
    } else {
        ok = run(v, ctx, ann);
    }
    ctx.scope = saved;
    --ctx.depth;
    return ok;
}
SLIPSTREAM_SCHEMA_STACK_FRAMES_END

bool Node::too_deep(const json::Value& v, Context& ctx) const {
    if (ctx.sink()) ctx.report(location_, "recursion_loop", "Recursion error - cyclic reference detected", v);
    return false;
}

// The 211-byte model body of compare_bench (7 fields, a nested object, a $ref) validates in ~3,150
// instructions (callgrind; ~4,000 before leaf nodes, steps_ and the property cursor), ~25% of them here.
bool Node::run(const json::Value& v, Context& ctx, Annotations* ann) const {
    const std::uint16_t bit = type_bit(v.type());
    bool ok = true;
    for (const Step& step : steps_) {
        if ((step.applies_to & bit) == 0) continue;
        if (!step.validator->validate(v, ctx, ann)) {
            ok = false;
            if (ctx.stop()) return false;
        }
    }
    return ok;
}

}  // namespace slipstream::json::schema::detail
