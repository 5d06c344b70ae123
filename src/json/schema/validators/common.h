// Shared names and helpers for the validator files (one file per keyword or keyword group).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json/schema/annotations.h"
#include "json/schema/context.h"
#include "json/schema/keyword_input.h"
#include "json/schema/keywords.h"
#include "json/schema/node.h"
#include "json/schema/py_repr.h"
#include "json/schema/regex.h"
#include "json/schema/str_cat.h"
#include "json/schema/validator.h"
#include "json/value.h"

namespace slipstream::json::schema::validators {

using detail::Annotations;
using detail::Context;
using detail::kAnyType;
using detail::kArrayType;
using detail::kNumberType;
using detail::kObjectType;
using detail::kStringType;
using detail::MuteSink;
using detail::Node;
using detail::PathGuard;
using detail::Validator;
using json::Value;

/// Key equality for member names (inline for short keys: json::key_equal).
inline bool same_key(std::string_view a, std::string_view b) {
    return json::key_equal(a, b);
}

/// An unsigned count as a JSON integer (kInt whenever it fits, like the parser produces).
inline Value count_value(std::uint64_t n) {
    return n <= static_cast<std::uint64_t>(INT64_MAX) ? Value::integer(static_cast<std::int64_t>(n))
                                                      : Value::unsigned_integer(n);
}

/// Compiles an ECMA-262 pattern keyword value (via RE2) or throws SchemaError at `location`.
std::unique_ptr<detail::Regex> compile_pattern(const KeywordInput& in, const Value& pattern,
                                               const std::string& location);

/// The names of a `required`-style array of strings, or throws SchemaError at `location`.
std::vector<std::string_view> name_list(const KeywordInput& in, const Value& list, const std::string& location);

/// The compiled subschemas of an array-of-schemas keyword (allOf, anyOf, oneOf).
std::vector<const Node*> compile_schema_array(const KeywordInput& in, std::string_view keyword);

/// Validates `child` against `node` as a member/item of the current instance, for keywords whose
/// subschema failures are failures of the whole schema (their annotations go nowhere: they are
/// about a different instance).
inline bool validate_child(const Node* node, const Value& child, Context& ctx) {
    return node->validate(child, ctx, nullptr);
}

/// Validates the current instance against an in-place subschema (allOf, anyOf, $ref, if/then...).
/// With tracking on, the subschema gets a fresh set (its own unevaluated* must not see this
/// schema's annotations) and its annotations count only if it passes.
inline bool validate_in_place(const Node* node, const Value& v, Context& ctx, Annotations* ann) {
    if (ann == nullptr) return node->validate(v, ctx, nullptr);
    Annotations local(ann->size());
    if (!node->validate(v, ctx, &local)) return false;
    ann->merge(local);
    return true;
}

}  // namespace slipstream::json::schema::validators
