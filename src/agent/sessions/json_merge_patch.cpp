// apply_merge_patch(): RFC 7396 written straight from the two parsed trees into the output.
#include "agent/sessions/json_merge_patch.h"

#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::sessions {

namespace {

base::Result<const json::Value*> parse_named(std::string_view text, base::Arena& arena, const char* what) {
    json::ParseError error;
    base::Result<const json::Value*> v = json::parse(text, arena, {}, &error);
    if (!v.is_ok()) {
        std::string message = std::string(what) + " is not JSON: " + error.message;
        return v.status().is_out_of_range() ? base::Status::out_of_range(message)
                                            : base::Status::invalid_argument(message);
    }
    return v;
}

// Writes MergePatch(target, patch); `target` is null when the member is absent. Depth is bounded by the parser.
base::Status write_merged(json::Writer& w, const json::Value* target, const json::Value& patch) {
    if (!patch.is_object()) return w.write_value(patch);
    const bool merge = target != nullptr && target->is_object();
    w.begin_object();
    if (merge) {
        for (const json::Member& m : target->members()) {
            const json::Value* p = patch.find(m.key);
            if (p == nullptr) {
                w.key(m.key);
                SLIPSTREAM_RETURN_IF_ERROR(w.write_value(m.value));
            } else if (!p->is_null()) {
                w.key(m.key);
                SLIPSTREAM_RETURN_IF_ERROR(write_merged(w, &m.value, *p));
            }
        }
    }
    for (const json::Member& m : patch.members()) {
        if (m.value.is_null() || (merge && target->find(m.key) != nullptr)) continue;
        w.key(m.key);
        SLIPSTREAM_RETURN_IF_ERROR(write_merged(w, nullptr, m.value));
    }
    w.end_object();
    return base::Status::ok();
}

}  // namespace

base::Result<std::string> apply_merge_patch(std::string_view target, std::string_view patch) {
    base::Arena arena;
    SLIPSTREAM_ASSIGN_OR_RETURN(const json::Value* t, parse_named(target, arena, "the document"));
    SLIPSTREAM_ASSIGN_OR_RETURN(const json::Value* p, parse_named(patch, arena, "the patch"));
    std::string out;
    json::Writer w(out);
    SLIPSTREAM_RETURN_IF_ERROR(write_merged(w, t, *p));
    return out;
}

base::Result<std::string> compact_json(std::string_view text) {
    base::Arena arena;
    SLIPSTREAM_ASSIGN_OR_RETURN(const json::Value* v, parse_named(text, arena, "the value"));
    std::string out;
    json::Writer w(out);
    SLIPSTREAM_RETURN_IF_ERROR(w.write_value(*v));
    return out;
}

}  // namespace slipstream::agent::sessions
