// The per-draft table of applicator keywords.
#include "json/schema/subschema_kind.h"

namespace slipstream::json::schema::detail {
namespace {

struct Entry {
    std::string_view keyword;
    SubschemaKind kind;
};

constexpr Entry k2020[] = {
    {"$defs", SubschemaKind::kSchemaMap},
    {"properties", SubschemaKind::kSchemaMap},
    {"patternProperties", SubschemaKind::kSchemaMap},
    {"dependentSchemas", SubschemaKind::kSchemaMap},
    {"dependencies", SubschemaKind::kDependencies7},  // not a 2020-12 keyword; kept for compatibility
    {"additionalProperties", SubschemaKind::kSchema},
    {"unevaluatedProperties", SubschemaKind::kSchema},
    {"unevaluatedItems", SubschemaKind::kSchema},
    {"propertyNames", SubschemaKind::kSchema},
    {"items", SubschemaKind::kSchema},
    {"contains", SubschemaKind::kSchema},
    {"not", SubschemaKind::kSchema},
    {"if", SubschemaKind::kSchema},
    {"then", SubschemaKind::kSchema},
    {"else", SubschemaKind::kSchema},
    {"prefixItems", SubschemaKind::kSchemaArray},
    {"allOf", SubschemaKind::kSchemaArray},
    {"anyOf", SubschemaKind::kSchemaArray},
    {"oneOf", SubschemaKind::kSchemaArray},
};

constexpr Entry k7[] = {
    {"definitions", SubschemaKind::kSchemaMap},
    {"properties", SubschemaKind::kSchemaMap},
    {"patternProperties", SubschemaKind::kSchemaMap},
    {"dependencies", SubschemaKind::kDependencies7},
    {"additionalProperties", SubschemaKind::kSchema},
    {"propertyNames", SubschemaKind::kSchema},
    {"additionalItems", SubschemaKind::kSchema},
    {"contains", SubschemaKind::kSchema},
    {"not", SubschemaKind::kSchema},
    {"if", SubschemaKind::kSchema},
    {"then", SubschemaKind::kSchema},
    {"else", SubschemaKind::kSchema},
    {"items", SubschemaKind::kItems7},
    {"allOf", SubschemaKind::kSchemaArray},
    {"anyOf", SubschemaKind::kSchemaArray},
    {"oneOf", SubschemaKind::kSchemaArray},
};

}  // namespace

SubschemaKind subschema_kind(std::string_view keyword, Draft draft) {
    if (draft == Draft::kDraft7) {
        for (const Entry& e : k7)
            if (e.keyword == keyword) return e.kind;
    } else {
        for (const Entry& e : k2020)
            if (e.keyword == keyword) return e.kind;
    }
    return SubschemaKind::kNone;
}

}  // namespace slipstream::json::schema::detail
