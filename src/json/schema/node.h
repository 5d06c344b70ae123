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
        : kind_(kind), leaf_(kind != Kind::kFalse), location_(std::move(location)), resource_(resource) {}
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// True when `v` is valid. `ann`: see Validator::validate. Never throws.
    /// Inline for leaves (one per scalar field of a model: no stack check, no scope frame, no call
    /// overhead beyond run()); the rest goes through validate_nested().
    bool validate(const json::Value& v, Context& ctx, Annotations* ann) const {
        if (!leaf_) return validate_nested(v, ctx, ann);
        if (ctx.depth >= ctx.max_depth()) [[unlikely]]
            return too_deep(v, ctx);
        return run(v, ctx, ann);
    }

    Kind kind() const { return kind_; }
    bool is_false() const { return kind_ == Kind::kFalse; }
    bool is_true() const { return kind_ == Kind::kTrue; }
    const std::string& location() const { return location_; }
    const Shape& shape() const { return shape_; }

    // Compile-time only.
    void add(std::unique_ptr<Validator> v) {
        steps_.push_back(Step{v.get(), v->applies_to()});
        validators_.push_back(std::move(v));
    }
    void track_unevaluated(bool properties, bool items) {
        tracks_properties_ |= properties;
        tracks_items_ |= items;
    }
    Shape& mutable_shape() { return shape_; }
    /// Called for every keyword that evaluates another node (a subschema, `$ref`, `$dynamicRef`). A node
    /// without one is a leaf: it cannot recurse or read the dynamic scope, so validate() skips the stack
    /// check and the scope frame for it (most nodes of a model: one per scalar field).
    void mark_applicator() { leaf_ = false; }
    /// Ends compilation: a schema object with no effective keyword accepts everything.
    void finish() {
        if (validators_.empty()) kind_ = Kind::kTrue;
    }

  private:
    bool validate_nested(const json::Value& v, Context& ctx, Annotations* ann) const;
    bool too_deep(const json::Value& v, Context& ctx) const;
    bool run(const json::Value& v, Context& ctx, Annotations* ann) const;

    Kind kind_;
    bool tracks_properties_ = false;
    bool tracks_items_ = false;
    bool leaf_;  // true until mark_applicator(); false for the false schema
    std::string location_;
    const Resource* resource_;
    // What run() reads, contiguous: a validator that does not apply to the instance's type is skipped
    // without touching the validator object.
    struct Step {
        const Validator* validator;
        std::uint16_t applies_to;
    };

    std::vector<std::unique_ptr<Validator>> validators_;  // owns the validators
    std::vector<Step> steps_;                             // the same, in order
    Shape shape_;
};

}  // namespace slipstream::json::schema::detail
