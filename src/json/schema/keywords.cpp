// The registration list: which factory compiles which keywords, in which drafts and vocabularies.
#include "json/schema/keywords.h"

#include <string_view>

namespace slipstream::json::schema::detail {
namespace {

using namespace validators;  // NOLINT: the factories listed below

constexpr std::uint8_t k7 = 1;
constexpr std::uint8_t k2020 = 2;
constexpr std::uint8_t kBoth = k7 | k2020;
constexpr std::uint8_t kCore = 0;  // no vocabulary bit needed

struct Registration {
    std::string_view triggers[4];  // the factory runs when any of these is present
    std::uint8_t drafts;
    std::uint8_t vocab;
    void (*make)(const KeywordInput&);
};

// Order matters: cheap type checks first (their error comes first, as in pydantic), in-place
// applicators after the local keywords, and unevaluated* last (they read everyone's annotations).
constexpr Registration kKeywords[] = {
    {{"type"}, kBoth, kVocabValidation, make_type},
    {{kFiniteKeyword}, kBoth, kCore, make_finite},  // pydantic checks it right after the type, before the bounds
    {{"const"}, kBoth, kVocabValidation, make_const},
    {{"enum"}, kBoth, kVocabValidation, make_enum},
    {{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}, kBoth, kVocabValidation, make_number_bounds},
    {{"multipleOf"}, kBoth, kVocabValidation, make_multiple_of},
    {{"minLength", "maxLength"}, kBoth, kVocabValidation, make_string_length},
    {{"pattern"}, kBoth, kVocabValidation, make_pattern},
    {{"format"}, kBoth, kCore, make_format},
    {{kPyTypeKeyword}, kBoth, kCore, make_py_type},
    {{"minItems", "maxItems"}, kBoth, kVocabValidation, make_item_count},
    {{"uniqueItems"}, kBoth, kVocabValidation, make_unique_items},
    {{"minProperties", "maxProperties"}, kBoth, kVocabValidation, make_property_count},
    {{"required"}, kBoth, kVocabValidation, make_required},
    {{"dependentRequired"}, k2020, kVocabValidation, make_dependent_required},
    {{"dependencies"}, kBoth, kCore, make_dependencies},
    {{"contentEncoding", "contentMediaType"}, k7, kCore, make_content},
    {{"prefixItems", "items", "additionalItems"}, kBoth, kVocabApplicator, make_items},
    {{"contains"}, kBoth, kVocabApplicator, make_contains},
    {{"properties", "patternProperties", "additionalProperties"}, kBoth, kVocabApplicator, make_properties},
    {{"propertyNames"}, kBoth, kVocabApplicator, make_property_names},
    {{"dependentSchemas"}, k2020, kVocabApplicator, make_dependent_schemas},
    {{"$ref"}, kBoth, kCore, make_ref},
    {{"$dynamicRef"}, k2020, kCore, make_dynamic_ref},
    {{"allOf"}, kBoth, kVocabApplicator, make_all_of},
    {{"anyOf"}, kBoth, kVocabApplicator, make_any_of},
    {{"oneOf"}, kBoth, kVocabApplicator, make_one_of},
    {{"not"}, kBoth, kVocabApplicator, make_not},
    {{"if"}, kBoth, kVocabApplicator, make_if_then_else},
    {{"unevaluatedItems"}, k2020, kVocabUnevaluated, make_unevaluated_items},
    {{"unevaluatedProperties"}, k2020, kVocabUnevaluated, make_unevaluated_properties},
};

bool present(const KeywordInput& in, const Registration& r) {
    for (std::string_view t : r.triggers)
        if (!t.empty() && in.get(t) != nullptr) return true;
    return false;
}

}  // namespace

void add_keywords(const KeywordInput& in) {
    const std::uint8_t draft = in.draft() == Draft::kDraft7 ? k7 : k2020;
    // Draft-07: "$ref" replaces every sibling keyword.
    if (draft == k7 && in.get("$ref") != nullptr) {
        make_ref(in);
        return;
    }
    for (const Registration& r : kKeywords) {
        if ((r.drafts & draft) == 0 || (r.vocab != kCore && (in.info().vocab & r.vocab) == 0)) continue;
        if (present(in, r)) r.make(in);
    }
}

}  // namespace slipstream::json::schema::detail
