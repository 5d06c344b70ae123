// Context::report and ErrorSink::make_ctx: turning a failure into a pydantic-shaped error.
#include "json/schema/context.h"

#include <algorithm>

namespace slipstream::json::schema {

json::Value ErrorSink::make_ctx(std::initializer_list<std::pair<std::string_view, json::Value>> entries) {
    auto* members = arena_.make_array<json::Member>(entries.size());
    std::uint32_t n = 0;
    for (const auto& [key, value] : entries) {
        json::Value v = value;
        if (v.is_string()) v = json::Value::string(arena_.copy(v.as_string()));
        if (v.type() == json::Type::kBigInt) v = json::Value::big_integer(arena_.copy(v.as_decimal()));
        members[n++] = json::Member{key, v};
    }
    return json::Value::object(members, n);
}

namespace detail {

void Context::report(const std::string& keyword_location, std::string_view type, std::string msg,
                     const json::Value& input, json::Value ctx, const PathSegment* extra) const {
    if (sink_ == nullptr || sink_->full()) return;
    ValidationError error;
    for (const PathFrame* f = path; f != nullptr; f = f->parent)
        error.loc.push_back(f->segment);
    std::reverse(error.loc.begin(), error.loc.end());
    if (extra != nullptr) error.loc.push_back(*extra);
    error.schema_path = keyword_location;
    error.type = type;
    error.msg = std::move(msg);
    error.ctx = ctx;
    error.input = input;
    sink_->add(std::move(error));
}

}  // namespace detail
}  // namespace slipstream::json::schema
