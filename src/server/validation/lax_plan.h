// LaxPlan: pydantic's lax-mode conversions of a JSON body ("2.5" -> 2.5 for a float), compiled from its schema.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "json/schema/error_sink.h"
#include "json/value.h"

namespace slipstream::server::detail {

/// A value pydantic would have tried to convert and could not ("x" for an int): its location and the error
/// pydantic reports there, in place of the JSON Schema type error.
struct LaxFailure {
    std::vector<json::schema::PathSegment> loc;
    std::string_view type;  // static storage: "int_parsing", "float_parsing", "bool_parsing", ...
    std::string_view msg;   // static storage
};

/// Built once per body schema (control plane); read-only and thread-safe afterwards.
///
/// FastAPI validates a parsed JSON body with pydantic in Python lax mode: strings become ints, floats and
/// bools when they parse ("1", " 2.5 ", "yes"), bools become 0/1 for numbers, 0/1 (and 0.0/1.0) become bools.
/// Strings are never made from numbers, and a `Literal` (marked "x-slipstream-literal") parses no strings.
/// The schema is read as pydantic writes it: `type`, `enum`/`const`, `properties`, `additionalProperties`,
/// `items`, `prefixItems`, `anyOf`/`oneOf` (a union: an exact JSON type match wins, else the first branch that
/// converts), `allOf`, and `$ref`s into the root `$defs`.
class LaxPlan {
  public:
    /// `schema` is the body's schema document; it need not outlive the plan.
    explicit LaxPlan(const json::Value& schema);
    ~LaxPlan();
    LaxPlan(const LaxPlan&) = delete;
    LaxPlan& operator=(const LaxPlan&) = delete;

    /// Converts `in` as pydantic's lax mode would. Returns true when anything was converted or could not be
    /// (then `*out` holds the value to validate, sharing unchanged subtrees with `in`, new ones in `arena`,
    /// and `failures` lists what could not be converted). Data plane: no exceptions; bounded recursion.
    bool convert(const json::Value& in, base::Arena& arena, json::Value* out, std::vector<LaxFailure>* failures) const;

    /// Whether an error's `schema_path` is the `enum` keyword of a Literal (pydantic: "literal_error").
    bool is_literal_enum(std::string_view schema_path) const {
        return literal_enums_.find(schema_path) != literal_enums_.end();
    }

    /// What pydantic type a schema object stands for, where its errors are named differently from a model's or
    /// a list's: a dataclass ("dataclass_type"), a TypedDict ("dict_type"), a tuple ("tuple_type", "Tuple"), a set
    /// ("set_type") or frozenset ("frozen_set_type").
    enum class Kind : std::uint8_t { kDataclass, kTypedDict, kTuple, kSet, kFrozenSet };
    struct KindInfo {
        Kind kind;
        std::string class_name;  // a dataclass's
    };
    /// The kind of the schema object at `pointer` ("#/properties/p"), or nullptr for a model, list or scalar.
    const KindInfo* kind_at(std::string_view pointer) const {
        auto it = kinds_.find(pointer);
        return it == kinds_.end() ? nullptr : &it->second;
    }

    /// Whether the schema is an Enum's (not a Literal's): pydantic reports a bad value as "enum" alone, even
    /// one it could not parse ("x" for an IntEnum).
    bool is_enum() const;

    /// Where pydantic reports an error at `loc` relative to others: a model's fields in declaration order (extra
    /// keys after them), items by index, a dict's keys as sent in `input` (the value validated, when given). Compare
    /// keys lexicographically; equal keys keep the validator's order.
    std::vector<std::uint32_t> order_key(std::span<const json::schema::PathSegment> loc,
                                         const json::Value* input = nullptr) const;

    struct Node;

  private:
    const Node* build(const json::Value& schema, const json::Value& root, const std::string& pointer, int depth);

    std::vector<std::unique_ptr<Node>> nodes_;
    std::vector<std::pair<std::string, Node*>> defs_;   // "$defs" names being or already built
    std::set<std::string, std::less<>> literal_enums_;  // "#/properties/mode/enum", ...
    std::map<std::string, KindInfo, std::less<>> kinds_;
    const Node* root_ = nullptr;
};

}  // namespace slipstream::server::detail
