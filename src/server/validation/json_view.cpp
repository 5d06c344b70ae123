// The public JsonView over json::Value trees (validated arguments, parsed bodies).
#include "slipstream/json_view.h"

#include "server/validation/json_node.h"

namespace slipstream {
namespace {

const json::Value* value_of(const detail::JsonNode* node) {
    return node == nullptr ? nullptr : &node->value;
}

}  // namespace

JsonView::Kind JsonView::kind() const {
    const json::Value* v = value_of(node_);
    if (v == nullptr) return Kind::kNull;
    switch (v->type()) {
        case json::Type::kNull:
            return Kind::kNull;
        case json::Type::kBool:
            return Kind::kBool;
        case json::Type::kInt:
            return Kind::kInt;
        case json::Type::kUint:
            return Kind::kUint;
        case json::Type::kBigInt:
            return Kind::kBigInt;
        case json::Type::kDouble:
            return Kind::kDouble;
        case json::Type::kString:
            return Kind::kString;
        case json::Type::kArray:
            return Kind::kArray;
        case json::Type::kObject:
            return Kind::kObject;
    }
    return Kind::kNull;
}

bool JsonView::as_bool() const {
    const json::Value* v = value_of(node_);
    return v != nullptr && v->is_bool() && v->as_bool();
}

std::int64_t JsonView::as_int() const {
    const json::Value* v = value_of(node_);
    if (v == nullptr) return 0;
    if (v->type() == json::Type::kInt) return v->as_int();
    if (v->type() == json::Type::kUint) return static_cast<std::int64_t>(v->as_uint());
    return 0;
}

std::uint64_t JsonView::as_uint() const {
    const json::Value* v = value_of(node_);
    if (v == nullptr) return 0;
    if (v->type() == json::Type::kUint) return v->as_uint();
    if (v->type() == json::Type::kInt && v->as_int() >= 0) return static_cast<std::uint64_t>(v->as_int());
    return 0;
}

double JsonView::as_double() const {
    const json::Value* v = value_of(node_);
    return v != nullptr && v->is_number() ? v->as_double() : 0.0;
}

std::string_view JsonView::as_decimal() const {
    const json::Value* v = value_of(node_);
    return v != nullptr ? v->as_decimal() : std::string_view();
}

std::string_view JsonView::as_string() const {
    const json::Value* v = value_of(node_);
    return v != nullptr && v->is_string() ? v->as_string() : std::string_view();
}

std::size_t JsonView::size() const {
    const json::Value* v = value_of(node_);
    return v != nullptr && (v->is_array() || v->is_object()) ? v->size() : 0;
}

JsonView JsonView::at(std::size_t i) const {
    const json::Value* v = value_of(node_);
    if (v == nullptr || !v->is_array() || i >= v->size()) return JsonView();
    return detail::view_of(&v->items()[i]);
}

std::pair<std::string_view, JsonView> JsonView::member(std::size_t i) const {
    const json::Value* v = value_of(node_);
    if (v == nullptr || !v->is_object() || i >= v->size()) return {};
    const json::Member& m = v->members()[i];
    return {m.key, detail::view_of(&m.value)};
}

JsonView JsonView::get(std::string_view key) const {
    const json::Value* v = value_of(node_);
    if (v == nullptr || !v->is_object()) return JsonView();
    return detail::view_of(v->find(key));
}

bool JsonView::has(std::string_view key) const {
    const json::Value* v = value_of(node_);
    return v != nullptr && v->is_object() && v->find(key) != nullptr;
}

}  // namespace slipstream
