// FastAPI's 422 body, written with the JSON writer in the key order FastAPI uses.
#include "server/validation/error_body.h"

#include <algorithm>

namespace slipstream::server::detail {

ErrorBody::ErrorBody(std::string& out) : writer_(out) {
    writer_.begin_object();
    writer_.key("detail");
    writer_.begin_array();
}

void ErrorBody::begin_error(std::string_view type, std::initializer_list<LocPart> prefix) {
    ++count_;
    writer_.begin_object();
    writer_.key("type");
    writer_.string(type);
    writer_.key("loc");
    writer_.begin_array();
    for (const LocPart& p : prefix) {
        if (p.index >= 0)
            writer_.int64(p.index);
        else
            writer_.string(p.key);
    }
}

namespace {

using json::schema::PathSegment;
using json::schema::ValidationError;

bool strictly_under(const std::vector<PathSegment>& loc, const std::vector<PathSegment>& parent) {
    return loc.size() > parent.size() && std::equal(parent.begin(), parent.end(), loc.begin());
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_dict_length(const ValidationError& e) {
    const json::Value* kind = e.ctx.is_object() ? e.ctx.find("field_type") : nullptr;
    return kind != nullptr && kind->is_string() && kind->as_string() == "Dictionary";
}

// The value at `loc` in `root`; for "missing" the object that lacks the key (pydantic's input there).
const json::Value* at_loc(const json::Value& root, const std::vector<PathSegment>& loc, bool missing) {
    const json::Value* cur = &root;
    for (std::size_t i = 0; i < loc.size(); ++i) {
        const PathSegment& seg = loc[i];
        const json::Value* next = nullptr;
        if (seg.is_index() && cur->is_array() && static_cast<std::uint64_t>(seg.index) < cur->size())
            next = &cur->items()[static_cast<std::size_t>(seg.index)];
        else if (!seg.is_index() && cur->is_object())
            next = cur->find(seg.key);
        if (next == nullptr && !seg.is_index() && i + 1 < loc.size()) continue;  // a union member's tag
        if (next == nullptr) return missing && i + 1 == loc.size() ? cur : nullptr;
        cur = next;
    }
    return cur;
}

// The schema object a failed keyword belongs to ("#/properties/n" for "#/properties/n/maximum").
std::string_view schema_parent(std::string_view path) {
    std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

// pydantic checks a number's or a string's constraints in a fixed order and reports only the first that fails:
// (group, rank), or {0, 0} for an error that is not such a constraint.
std::pair<int, int> constraint_rank(std::string_view type) {
    static constexpr std::string_view kNumber[] = {"multiple_of", "less_than_equal", "less_than", "greater_than_equal",
                                                   "greater_than"};
    static constexpr std::string_view kString[] = {"string_too_short", "string_too_long", "string_pattern_mismatch"};
    for (int i = 0; i < 5; ++i)
        if (type == kNumber[i]) return {1, i};
    for (int i = 0; i < 3; ++i)
        if (type == kString[i]) return {2, i};
    return {0, 0};
}

}  // namespace

std::vector<char> select_like_pydantic(std::span<const ValidationError> errors) {
    std::vector<char> keep(errors.size(), 1);
    for (std::size_t i = 0; i < errors.size(); ++i) {
        const ValidationError& e = errors[i];
        bool has_children = false;
        for (const ValidationError& other : errors)
            has_children = has_children || strictly_under(other.loc, e.loc);
        if (e.type == "too_long" && !is_dict_length(e)) {
            for (std::size_t j = 0; j < errors.size(); ++j)
                if (strictly_under(errors[j].loc, e.loc)) keep[j] = 0;
        } else if ((e.type == "too_short" || e.type == "too_long") && has_children) {
            keep[i] = 0;
        } else if (e.type == "enum" || e.type == "literal_error") {
            for (std::size_t j = 0; j < errors.size(); ++j)
                if (j != i && errors[j].loc == e.loc &&
                    (ends_with(errors[j].type, "_type") || ends_with(errors[j].schema_path, "/type")))
                    keep[j] = 0;
        } else if (auto [group, rank] = constraint_rank(e.type); group != 0) {
            for (const ValidationError& other : errors) {
                auto [other_group, other_rank] = constraint_rank(other.type);
                if (other_group == group && other_rank < rank && other.loc == e.loc) keep[i] = 0;
                // A value of the wrong type (10.5 for an int) is not checked against the type's constraints, nor
                // is a non-finite float where allow_inf_nan=False.
                if (other.loc == e.loc && (ends_with(other.schema_path, "/type") || other.type == "finite_number") &&
                    schema_parent(other.schema_path) == schema_parent(e.schema_path))
                    keep[i] = 0;
            }
        }
    }
    return keep;
}

void ErrorBody::add_all(const json::schema::ErrorSink& sink, std::initializer_list<LocPart> prefix,
                        std::span<const std::string_view> raw, bool raw_is_list, const ErrorRewrite* rewrite) {
    std::vector<char> keep = select_like_pydantic(sink.errors());
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < sink.errors().size(); ++i)
        if (keep[i]) order.push_back(i);
    if (rewrite != nullptr && rewrite->plan != nullptr && order.size() > 1) {
        // pydantic's order (fields as declared), not the order of the members in the document.
        std::vector<std::vector<std::uint32_t>> keys(sink.errors().size());
        for (std::size_t i : order)
            keys[i] = rewrite->plan->order_key(sink.errors()[i].loc, rewrite->document);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    }
    for (std::size_t i : order) {
        const ValidationError& e = sink.errors()[i];
        Named named = name_like_pydantic(e, rewrite);
        begin_error(named.type, prefix);
        for (const PathSegment& seg : e.loc) {
            if (seg.is_index())
                writer_.int64(seg.index);
            else
                writer_.string(seg.key);
        }
        writer_.end_array();
        writer_.key("msg");
        writer_.string(named.msg);
        writer_.key("input");
        write_input(e, raw, raw_is_list, rewrite);
        write_ctx(e, named);
        writer_.end_object();
    }
}

ErrorBody::Named ErrorBody::name_like_pydantic(const ValidationError& e, const ErrorRewrite* rewrite) {
    Named named{e.type, e.msg, {}, false};
    if (rewrite == nullptr) return named;
    if (named.type == "enum" && rewrite->plan != nullptr && rewrite->plan->is_literal_enum(e.schema_path))
        named.type = "literal_error";
    for (const LaxFailure& f : rewrite->failures)
        if (f.loc == e.loc && ends_with(named.type, "_type")) {
            named.type = f.type;
            named.msg = f.msg;
        }
    // The schema object the failed keyword belongs to: a dataclass, TypedDict or tuple names its errors itself.
    std::size_t slash = e.schema_path.rfind('/');
    const LaxPlan::KindInfo* kind = rewrite->plan != nullptr && slash != std::string::npos
                                        ? rewrite->plan->kind_at(std::string_view(e.schema_path).substr(0, slash))
                                        : nullptr;
    if (kind == nullptr) return named;
    if (named.type == "model_attributes_type" && kind->kind == LaxPlan::Kind::kDataclass) {
        named = {"dataclass_type", "Input should be a dictionary or an instance of " + kind->class_name,
                 kind->class_name, false};
    } else if (named.type == "extra_forbidden" && kind->kind == LaxPlan::Kind::kDataclass) {
        named = {"unexpected_keyword_argument", "Unexpected keyword argument", {}, false};  // its __init__ says so
    } else if (named.type == "model_attributes_type" && kind->kind == LaxPlan::Kind::kTypedDict) {
        named = {"dict_type", "Input should be a valid dictionary", {}, false};
    } else if (named.type == "list_type" && kind->kind == LaxPlan::Kind::kTuple) {
        named = {"tuple_type", "Input should be a valid tuple", {}, false};
    } else if (named.type == "list_type" && kind->kind == LaxPlan::Kind::kSet) {
        named = {"set_type", "Input should be a valid set", {}, false};
    } else if (named.type == "list_type" && kind->kind == LaxPlan::Kind::kFrozenSet) {
        named = {"frozen_set_type", "Input should be a valid frozenset", {}, false};
    } else if ((named.type == "too_long" || named.type == "too_short") && kind->kind == LaxPlan::Kind::kTuple &&
               named.msg.rfind("List ", 0) == 0) {
        named.msg.replace(0, 4, "Tuple");
        named.tuple = true;
    }
    return named;
}

void ErrorBody::write_ctx(const ValidationError& e, const Named& named) {
    if (!named.class_name.empty()) {
        writer_.key("ctx");
        writer_.begin_object();
        writer_.key("class_name");
        writer_.string(named.class_name);
        return writer_.end_object();
    }
    if (e.ctx.is_null() || named.type == "dict_type" || named.type == "tuple_type") return;
    writer_.key("ctx");
    if (!named.tuple || !e.ctx.is_object()) {
        if (!writer_.write_value(e.ctx).is_ok()) writer_.null();
        return;
    }
    writer_.begin_object();  // a tuple's length error: field_type "Tuple"
    for (const json::Member& m : e.ctx.members()) {
        writer_.key(m.key);
        if (m.key == "field_type") {
            writer_.string("Tuple");
        } else if (!writer_.write_value(m.value).is_ok()) {
            writer_.null();
        }
    }
    writer_.end_object();
}

void ErrorBody::write_input(const ValidationError& e, std::span<const std::string_view> raw, bool raw_is_list,
                            const ErrorRewrite* rewrite) {
    if (!raw.empty() && e.loc.empty()) {
        if (!raw_is_list) return writer_.string(raw.back());
        writer_.begin_array();
        for (std::string_view r : raw)
            writer_.string(r);
        return writer_.end_array();
    }
    if (!raw.empty() && raw_is_list && e.loc.size() == 1 && e.loc[0].is_index() &&
        static_cast<std::size_t>(e.loc[0].index) < raw.size())
        return writer_.string(raw[static_cast<std::size_t>(e.loc[0].index)]);
    const json::Value* input = &e.input;
    if (rewrite != nullptr && rewrite->original != nullptr)  // pydantic reports what was sent, not the conversion
        if (const json::Value* sent = at_loc(*rewrite->original, e.loc, e.type == "missing")) input = sent;
    // Inputs from JSON are finite; a coerced "inf" is only reached above, so a failure here leaves null.
    if (!write_encoded(*input).is_ok()) writer_.null();
}

// As FastAPI's jsonable_encoder writes an error's input (sqlalchemy_safe): object keys starting with "_sa" are
// left out at every depth. Recursion is bounded by the parser's depth limit.
base::Status ErrorBody::write_encoded(const json::Value& v) {
    if (v.is_array()) {
        writer_.begin_array();
        for (const json::Value& item : v.items())
            SLIPSTREAM_RETURN_IF_ERROR(write_encoded(item));
        writer_.end_array();
        return base::Status::ok();
    }
    if (!v.is_object()) return writer_.write_value(v);
    writer_.begin_object();
    for (const json::Member& m : v.members()) {
        if (m.key.starts_with("_sa")) continue;
        writer_.key(m.key);
        SLIPSTREAM_RETURN_IF_ERROR(write_encoded(m.value));
    }
    writer_.end_object();
    return base::Status::ok();
}

void ErrorBody::add_missing(std::initializer_list<LocPart> prefix) {
    begin_error("missing", prefix);
    writer_.end_array();
    writer_.key("msg");
    writer_.string("Field required");
    writer_.key("input");
    writer_.null();
    writer_.end_object();
}

void ErrorBody::add_json_invalid(std::size_t position, std::string_view reason) {
    begin_error("json_invalid", {{"body"}, {{}, static_cast<long long>(position)}});
    writer_.end_array();
    writer_.key("msg");
    writer_.string("JSON decode error");
    writer_.key("input");
    writer_.begin_object();
    writer_.end_object();
    writer_.key("ctx");
    writer_.begin_object();
    writer_.key("error");
    writer_.string(reason);
    writer_.end_object();
    writer_.end_object();
}

void ErrorBody::finish() {
    writer_.end_array();
    writer_.end_object();
}

}  // namespace slipstream::server::detail
