// The keyword factories (one per validator file) and the registration list that runs them.
#pragma once

#include <string_view>

#include "json/schema/keyword_input.h"

namespace slipstream::json::schema::detail {

/// Runs every registered factory whose keywords appear in the schema object, in list order.
void add_keywords(const KeywordInput& in);

}  // namespace slipstream::json::schema::detail

namespace slipstream::json::schema::validators {

using detail::KeywordInput;

// Each factory reads its keyword(s) from `in`, checks their shape (throwing SchemaError) and adds
// zero or more validators to in.node(). Defined in validators/<name>_validator.cpp.
void make_type(const KeywordInput& in);           // type
void make_const(const KeywordInput& in);          // const
void make_enum(const KeywordInput& in);           // enum
void make_number_bounds(const KeywordInput& in);  // minimum maximum exclusiveMinimum exclusiveMaximum
void make_multiple_of(const KeywordInput& in);    // multipleOf
void make_string_length(const KeywordInput& in);  // minLength maxLength
void make_pattern(const KeywordInput& in);        // pattern
void make_format(const KeywordInput& in);         // format
void make_py_type(const KeywordInput& in);        // x-slipstream-pytype (vendor: pydantic types)

/// The vendor keyword of make_py_type (written by slipstream/_schema.py).
inline constexpr std::string_view kPyTypeKeyword = "x-slipstream-pytype";
void make_finite(const KeywordInput& in);  // x-slipstream-finite (vendor: pydantic's allow_inf_nan=False)
/// The vendor keyword of make_finite (written by slipstream/_schema.py).
inline constexpr std::string_view kFiniteKeyword = "x-slipstream-finite";
void make_item_count(const KeywordInput& in);              // minItems maxItems
void make_unique_items(const KeywordInput& in);            // uniqueItems
void make_items(const KeywordInput& in);                   // prefixItems items additionalItems
void make_contains(const KeywordInput& in);                // contains minContains maxContains
void make_property_count(const KeywordInput& in);          // minProperties maxProperties
void make_required(const KeywordInput& in);                // required
void make_dependent_required(const KeywordInput& in);      // dependentRequired
void make_dependent_schemas(const KeywordInput& in);       // dependentSchemas
void make_dependencies(const KeywordInput& in);            // dependencies (draft-07; 2020-12 compatibility)
void make_content(const KeywordInput& in);                 // draft-07 contentEncoding contentMediaType
void make_properties(const KeywordInput& in);              // properties patternProperties additionalProperties
void make_property_names(const KeywordInput& in);          // propertyNames
void make_ref(const KeywordInput& in);                     // $ref
void make_dynamic_ref(const KeywordInput& in);             // $dynamicRef
void make_all_of(const KeywordInput& in);                  // allOf
void make_any_of(const KeywordInput& in);                  // anyOf
void make_one_of(const KeywordInput& in);                  // oneOf
void make_not(const KeywordInput& in);                     // not
void make_if_then_else(const KeywordInput& in);            // if then else
void make_unevaluated_items(const KeywordInput& in);       // unevaluatedItems
void make_unevaluated_properties(const KeywordInput& in);  // unevaluatedProperties

}  // namespace slipstream::json::schema::validators
