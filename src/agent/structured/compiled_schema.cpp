// CompiledSchema: parse and compile once (compile's exceptions stop here), validate whole documents.
#include "agent/structured/compiled_schema.h"

#include <string>

namespace slipstream::agent::structured {

base::Result<std::shared_ptr<const CompiledSchema>> CompiledSchema::create(
    std::string_view schema_json, const json::schema::CompileOptions& options) {
    std::shared_ptr<CompiledSchema> s(new CompiledSchema());
    json::ParseError pe;
    base::Result<const json::Value*> doc = json::parse(schema_json, s->arena_, {}, &pe);
    if (!doc.is_ok()) return base::Status::invalid_argument("the schema is not JSON: " + pe.message);
    s->doc_ = doc.value();
    try {
        s->compiled_ = json::schema::compile(*s->doc_, options);
        s->patterns_ = compile_patterns(*s->doc_);
    } catch (const json::schema::SchemaError& e) {
        return base::Status::invalid_argument(std::string("the schema does not compile: ") + e.what());
    }
    return std::shared_ptr<const CompiledSchema>(std::move(s));
}

bool CompiledSchema::accepts(std::string_view text, json::ParseOptions options) const {
    base::Arena arena;
    base::Result<const json::Value*> doc = json::parse(text, arena, options);
    return doc.is_ok() && compiled_.validate(**doc);
}

}  // namespace slipstream::agent::structured
