// The 2020-12 and draft-07 metaschemas (json-schema.org), built in so `$ref`/`$schema` to them resolve offline.
#include "json/schema/metaschemas.h"

namespace slipstream::json::schema::detail {
namespace {

struct Builtin {
    std::string_view uri;
    std::string_view text;
};

// Minified copies; the texts are the published documents with whitespace removed.
constexpr Builtin kBuiltins[] = {
    {"https://json-schema.org/draft/2020-12/schema",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/schema","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true,"https://json-sche)json"
     R"json(ma.org/draft/2020-12/vocab/applicator":true,"https://json-schema.org/draft/2020-12/vocab/unevaluated)json"
     R"json(":true,"https://json-schema.org/draft/2020-12/vocab/validation":true,"https://json-schema.org/draft/)json"
     R"json(2020-12/vocab/meta-data":true,"https://json-schema.org/draft/2020-12/vocab/format-annotation":true,")json"
     R"json(https://json-schema.org/draft/2020-12/vocab/content":true},"$dynamicAnchor":"meta","title":"Core and)json"
     R"json( Validation specifications meta-schema","allOf":[{"$ref":"meta/core"},{"$ref":"meta/applicator"},{"$)json"
     R"json(ref":"meta/unevaluated"},{"$ref":"meta/validation"},{"$ref":"meta/meta-data"},{"$ref":"meta/format-a)json"
     R"json(nnotation"},{"$ref":"meta/content"}],"type":["object","boolean"],"$comment":"This meta-schema also d)json"
     R"json(efines keywords that have appeared in previous drafts in order to prevent incompatible extensions as)json"
     R"json( they remain in common use.","properties":{"definitions":{"$comment":"\"definitions\" has been repla)json"
     R"json(ced by \"$defs\".","type":"object","additionalProperties":{"$dynamicRef":"#meta"},"deprecated":true,)json"
     R"json("default":{}},"dependencies":{"$comment":"\"dependencies\" has been split and replaced by \"dependen)json"
     R"json(tSchemas\" and \"dependentRequired\" in order to serve their differing semantics.","type":"object",")json"
     R"json(additionalProperties":{"anyOf":[{"$dynamicRef":"#meta"},{"$ref":"meta/validation#/$defs/stringArray")json"
     R"json(}]},"deprecated":true,"default":{}},"$recursiveAnchor":{"$comment":"\"$recursiveAnchor\" has been re)json"
     R"json(placed by \"$dynamicAnchor\".","$ref":"meta/core#/$defs/anchorString","deprecated":true},"$recursive)json"
     R"json(Ref":{"$comment":"\"$recursiveRef\" has been replaced by \"$dynamicRef\".","$ref":"meta/core#/$defs/)json"
     R"json(uriReferenceString","deprecated":true}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/applicator",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/applicator","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/applicator":true},"$)json"
     R"json(dynamicAnchor":"meta","title":"Applicator vocabulary meta-schema","type":["object","boolean"],"prope)json"
     R"json(rties":{"prefixItems":{"$ref":"#/$defs/schemaArray"},"items":{"$dynamicRef":"#meta"},"contains":{"$d)json"
     R"json(ynamicRef":"#meta"},"additionalProperties":{"$dynamicRef":"#meta"},"properties":{"type":"object","ad)json"
     R"json(ditionalProperties":{"$dynamicRef":"#meta"},"default":{}},"patternProperties":{"type":"object","addi)json"
     R"json(tionalProperties":{"$dynamicRef":"#meta"},"propertyNames":{"format":"regex"},"default":{}},"dependen)json"
     R"json(tSchemas":{"type":"object","additionalProperties":{"$dynamicRef":"#meta"},"default":{}},"propertyNam)json"
     R"json(es":{"$dynamicRef":"#meta"},"if":{"$dynamicRef":"#meta"},"then":{"$dynamicRef":"#meta"},"else":{"$dy)json"
     R"json(namicRef":"#meta"},"allOf":{"$ref":"#/$defs/schemaArray"},"anyOf":{"$ref":"#/$defs/schemaArray"},"on)json"
     R"json(eOf":{"$ref":"#/$defs/schemaArray"},"not":{"$dynamicRef":"#meta"}},"$defs":{"schemaArray":{"type":"a)json"
     R"json(rray","minItems":1,"items":{"$dynamicRef":"#meta"}}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/content",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/content","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/content":true},"$dynami)json"
     R"json(cAnchor":"meta","title":"Content vocabulary meta-schema","type":["object","boolean"],"properties":{")json"
     R"json(contentEncoding":{"type":"string"},"contentMediaType":{"type":"string"},"contentSchema":{"$dynamicRe)json"
     R"json(f":"#meta"}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/core",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/core","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true},"$dynamicAncho)json"
     R"json(r":"meta","title":"Core vocabulary meta-schema","type":["object","boolean"],"properties":{"$id":{"$r)json"
     R"json(ef":"#/$defs/uriReferenceString","$comment":"Non-empty fragments not allowed.","pattern":"^[^#]*#?$")json"
     R"json(},"$schema":{"$ref":"#/$defs/uriString"},"$ref":{"$ref":"#/$defs/uriReferenceString"},"$anchor":{"$r)json"
     R"json(ef":"#/$defs/anchorString"},"$dynamicRef":{"$ref":"#/$defs/uriReferenceString"},"$dynamicAnchor":{"$)json"
     R"json(ref":"#/$defs/anchorString"},"$vocabulary":{"type":"object","propertyNames":{"$ref":"#/$defs/uriStri)json"
     R"json(ng"},"additionalProperties":{"type":"boolean"}},"$comment":{"type":"string"},"$defs":{"type":"object)json"
     R"json(","additionalProperties":{"$dynamicRef":"#meta"}}},"$defs":{"anchorString":{"type":"string","pattern)json"
     R"json(":"^[A-Za-z_][-A-Za-z0-9._]*$"},"uriString":{"type":"string","format":"uri"},"uriReferenceString":{")json"
     R"json(type":"string","format":"uri-reference"}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/format-annotation",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/format-annotation","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/format-annota)json"
     R"json(tion":true},"$dynamicAnchor":"meta","title":"Format vocabulary meta-schema for annotation results",")json"
     R"json(type":["object","boolean"],"properties":{"format":{"type":"string"}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/format-assertion",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/format-assertion","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/format-asserti)json"
     R"json(on":true},"$dynamicAnchor":"meta","title":"Format vocabulary meta-schema for assertion results","typ)json"
     R"json(e":["object","boolean"],"properties":{"format":{"type":"string"}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/meta-data",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/meta-data","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/meta-data":true},"$dy)json"
     R"json(namicAnchor":"meta","title":"Meta-data vocabulary meta-schema","type":["object","boolean"],"properti)json"
     R"json(es":{"title":{"type":"string"},"description":{"type":"string"},"default":true,"deprecated":{"type":")json"
     R"json(boolean","default":false},"readOnly":{"type":"boolean","default":false},"writeOnly":{"type":"boolean)json"
     R"json(","default":false},"examples":{"type":"array","items":true}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/unevaluated",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/unevaluated","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/unevaluated":true},)json"
     R"json("$dynamicAnchor":"meta","title":"Unevaluated applicator vocabulary meta-schema","type":["object","bo)json"
     R"json(olean"],"properties":{"unevaluatedItems":{"$dynamicRef":"#meta"},"unevaluatedProperties":{"$dynamicR)json"
     R"json(ef":"#meta"}}})json"},
    {"https://json-schema.org/draft/2020-12/meta/validation",
     R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org/draft/2020-)json"
     R"json(12/meta/validation","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/validation":true},"$)json"
     R"json(dynamicAnchor":"meta","title":"Validation vocabulary meta-schema","type":["object","boolean"],"prope)json"
     R"json(rties":{"type":{"anyOf":[{"$ref":"#/$defs/simpleTypes"},{"type":"array","items":{"$ref":"#/$defs/sim)json"
     R"json(pleTypes"},"minItems":1,"uniqueItems":true}]},"const":true,"enum":{"type":"array","items":true},"mul)json"
     R"json(tipleOf":{"type":"number","exclusiveMinimum":0},"maximum":{"type":"number"},"exclusiveMaximum":{"typ)json"
     R"json(e":"number"},"minimum":{"type":"number"},"exclusiveMinimum":{"type":"number"},"maxLength":{"$ref":"#)json"
     R"json(/$defs/nonNegativeInteger"},"minLength":{"$ref":"#/$defs/nonNegativeIntegerDefault0"},"pattern":{"ty)json"
     R"json(pe":"string","format":"regex"},"maxItems":{"$ref":"#/$defs/nonNegativeInteger"},"minItems":{"$ref":")json"
     R"json(#/$defs/nonNegativeIntegerDefault0"},"uniqueItems":{"type":"boolean","default":false},"maxContains":)json"
     R"json({"$ref":"#/$defs/nonNegativeInteger"},"minContains":{"$ref":"#/$defs/nonNegativeInteger","default":1)json"
     R"json(},"maxProperties":{"$ref":"#/$defs/nonNegativeInteger"},"minProperties":{"$ref":"#/$defs/nonNegative)json"
     R"json(IntegerDefault0"},"required":{"$ref":"#/$defs/stringArray"},"dependentRequired":{"type":"object","ad)json"
     R"json(ditionalProperties":{"$ref":"#/$defs/stringArray"}}},"$defs":{"nonNegativeInteger":{"type":"integer")json"
     R"json(,"minimum":0},"nonNegativeIntegerDefault0":{"$ref":"#/$defs/nonNegativeInteger","default":0},"simple)json"
     R"json(Types":{"enum":["array","boolean","integer","null","number","object","string"]},"stringArray":{"type)json"
     R"json(":"array","items":{"type":"string"},"uniqueItems":true,"default":[]}}})json"},
    {"http://json-schema.org/draft-07/schema",
     R"json({"$schema":"http://json-schema.org/draft-07/schema#","$id":"http://json-schema.org/draft-07/schema#")json"
     R"json(,"title":"Core schema meta-schema","definitions":{"schemaArray":{"type":"array","minItems":1,"items")json"
     R"json(:{"$ref":"#"}},"nonNegativeInteger":{"type":"integer","minimum":0},"nonNegativeIntegerDefault0":{"al)json"
     R"json(lOf":[{"$ref":"#/definitions/nonNegativeInteger"},{"default":0}]},"simpleTypes":{"enum":["array","bo)json"
     R"json(olean","integer","null","number","object","string"]},"stringArray":{"type":"array","items":{"type":")json"
     R"json(string"},"uniqueItems":true,"default":[]}},"type":["object","boolean"],"properties":{"$id":{"type":")json"
     R"json(string","format":"uri-reference"},"$schema":{"type":"string","format":"uri"},"$ref":{"type":"string")json"
     R"json(,"format":"uri-reference"},"$comment":{"type":"string"},"title":{"type":"string"},"description":{"ty)json"
     R"json(pe":"string"},"default":true,"readOnly":{"type":"boolean","default":false},"examples":{"type":"array)json"
     R"json(","items":true},"multipleOf":{"type":"number","exclusiveMinimum":0},"maximum":{"type":"number"},"exc)json"
     R"json(lusiveMaximum":{"type":"number"},"minimum":{"type":"number"},"exclusiveMinimum":{"type":"number"},"m)json"
     R"json(axLength":{"$ref":"#/definitions/nonNegativeInteger"},"minLength":{"$ref":"#/definitions/nonNegative)json"
     R"json(IntegerDefault0"},"pattern":{"type":"string","format":"regex"},"additionalItems":{"$ref":"#"},"items)json"
     R"json(":{"anyOf":[{"$ref":"#"},{"$ref":"#/definitions/schemaArray"}],"default":true},"maxItems":{"$ref":"#)json"
     R"json(/definitions/nonNegativeInteger"},"minItems":{"$ref":"#/definitions/nonNegativeIntegerDefault0"},"un)json"
     R"json(iqueItems":{"type":"boolean","default":false},"contains":{"$ref":"#"},"maxProperties":{"$ref":"#/def)json"
     R"json(initions/nonNegativeInteger"},"minProperties":{"$ref":"#/definitions/nonNegativeIntegerDefault0"},"r)json"
     R"json(equired":{"$ref":"#/definitions/stringArray"},"additionalProperties":{"$ref":"#"},"definitions":{"ty)json"
     R"json(pe":"object","additionalProperties":{"$ref":"#"},"default":{}},"properties":{"type":"object","additi)json"
     R"json(onalProperties":{"$ref":"#"},"default":{}},"patternProperties":{"type":"object","additionalPropertie)json"
     R"json(s":{"$ref":"#"},"propertyNames":{"format":"regex"},"default":{}},"dependencies":{"type":"object","ad)json"
     R"json(ditionalProperties":{"anyOf":[{"$ref":"#"},{"$ref":"#/definitions/stringArray"}]}},"propertyNames":{)json"
     R"json("$ref":"#"},"const":true,"enum":{"type":"array","items":true},"type":{"anyOf":[{"$ref":"#/definition)json"
     R"json(s/simpleTypes"},{"type":"array","items":{"$ref":"#/definitions/simpleTypes"},"minItems":1,"uniqueIte)json"
     R"json(ms":true}]},"format":{"type":"string"},"contentMediaType":{"type":"string"},"contentEncoding":{"type)json"
     R"json(":"string"},"if":{"$ref":"#"},"then":{"$ref":"#"},"else":{"$ref":"#"},"allOf":{"$ref":"#/definitions)json"
     R"json(/schemaArray"},"anyOf":{"$ref":"#/definitions/schemaArray"},"oneOf":{"$ref":"#/definitions/schemaArr)json"
     R"json(ay"},"not":{"$ref":"#"}},"default":true})json"},
};

}  // namespace

std::optional<std::string_view> builtin_metaschema(std::string_view uri) {
    if (!uri.empty() && uri.back() == '#') uri.remove_suffix(1);
    for (const Builtin& b : kBuiltins)
        if (b.uri == uri) return b.text;
    return std::nullopt;
}

}  // namespace slipstream::json::schema::detail
