// Node: one compiled schema object (or boolean schema) and the runtime schema resources.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json/schema/annotations.h"
#include "json/schema/context.h"
#include "json/schema/validator.h"
#include "json/value.h"

namespace slipstream::json::schema::detail {

class Node;

/// A schema resource at run time: its URI and the `$dynamicAnchor`s it defines (for $dynamicRef).
struct Resource {
    std::string uri;
    std::vector<std::pair<std::string, const Node*>> dynamic_anchors;

    const Node* dynamic_anchor(std::string_view name) const {
        for (const auto& [n, node] : dynamic_anchors)
            if (n == name) return node;
        return nullptr;
    }
};

/// JSON Schema `type` names as bits (for `type` and for coercion hints).
enum SchemaType : std::uint8_t {
    kTypeNull = 1,
    kTypeBoolean = 2,
    kTypeInteger = 4,
    kTypeNumber = 8,
    kTypeString = 16,
    kTypeArray = 32,
    kTypeObject = 64,
    kTypeAll = 127,
};

/// What coercion needs to know about a node: the declared types, the items schema, the union
/// branches and a `$ref` target. Filled by the keyword factories.
struct Shape {
    std::uint8_t types = kTypeAll;
    const Node* items = nullptr;
    std::vector<const Node*> any_of;  // anyOf / oneOf branches
    std::vector<const Node*> all_of;
    const Node* const* ref = nullptr;  // a $ref's target slot (set once linked)
};

class Node {
  public:
    enum class Kind : std::uint8_t { kTrue, kFalse, kKeywords };

    Node(Kind kind, std::string location, const Resource* resource)
        : kind_(kind), location_(std::move(location)), resource_(resource) {}
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// True when `v` is valid. `ann`: see Validator::validate. Never throws.
    bool validate(const json::Value& v, Context& ctx, Annotations* ann) const;

    Kind kind() const { return kind_; }
    bool is_false() const { return kind_ == Kind::kFalse; }
    bool is_true() const { return kind_ == Kind::kTrue; }
    const std::string& location() const { return location_; }
    const Shape& shape() const { return shape_; }

    // Compile-time only.
    void add(std::unique_ptr<Validator> v) { validators_.push_back(std::move(v)); }
    void track_unevaluated(bool properties, bool items) {
        tracks_properties_ |= properties;
        tracks_items_ |= items;
    }
    Shape& mutable_shape() { return shape_; }
    /// Ends compilation: a schema object with no effective keyword accepts everything.
    void finish() {
        if (validators_.empty()) kind_ = Kind::kTrue;
    }

  private:
    bool run(const json::Value& v, Context& ctx, Annotations* ann) const;

    Kind kind_;
    bool tracks_properties_ = false;
    bool tracks_items_ = false;
    std::string location_;
    const Resource* resource_;
    std::vector<std::unique_ptr<Validator>> validators_;
    Shape shape_;
};

}  // namespace slipstream::json::schema::detail
