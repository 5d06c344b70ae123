// Fuzz target: "<schema JSON>\n--\n<instance JSON>" -> parse both, compile, validate, coerce.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/arena.h"
#include "json/parse.h"
#include "json/schema/coerce.h"
#include "json/schema/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace slipstream;
    std::string_view input(reinterpret_cast<const char*>(data), size);
    auto split = input.find("\n--\n");
    std::string_view schema_text = input.substr(0, split);
    std::string_view instance_text = split == std::string_view::npos ? "null" : input.substr(split + 4);

    json::ParseOptions limits;
    limits.max_depth = 32;
    limits.max_string_bytes = 4096;
    limits.max_members = 256;
    base::Arena arena;
    auto schema_value = json::parse(schema_text, arena, limits);
    if (!schema_value.is_ok()) return 0;

    json::schema::CompileOptions options;
    options.format_assertion = (size & 1) != 0;
    options.max_depth = 64;
    options.resolver = [](std::string_view) { return std::optional<std::string>(); };  // never any network
    json::schema::Schema schema;
    try {
        schema = json::schema::compile(*schema_value.value(), options);
    } catch (const json::schema::SchemaError&) {
        return 0;
    }

    // The quick answer, the collecting answer and the error list must agree.
    auto instance = json::parse(instance_text, arena, limits);
    if (instance.is_ok()) {
        bool quick = schema.validate(*instance.value());
        json::schema::ErrorSink sink(16);
        bool full = schema.validate(*instance.value(), &sink);
        if (quick != full || full != sink.empty()) std::abort();
    }
    // Coercion sees the instance text as a raw parameter value, once and twice.
    std::string_view raw[2] = {instance_text, schema_text.substr(0, 16)};
    json::schema::ErrorSink sink(16);
    (void)json::schema::coerce(schema, std::span<const std::string_view>(raw, 2), arena, &sink);
    (void)json::schema::coerce(schema, instance_text, arena, nullptr);
    return 0;
}
