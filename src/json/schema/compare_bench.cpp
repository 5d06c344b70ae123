// Parse + validate against the same JSON Schema: Slipstream vs valijson (rapidjson and nlohmann adapters).
//
// Documents and schemas are bench/micro/data/*.json (generated from pydantic models by
// bench/micro/documents.py); bench/micro/schema_compare.py runs this binary with the Python peers
// (pydantic v2, jsonschema) and renders the ratios. Every contender's parse is timed with its
// validation, and each contender must accept both documents and refuse kInvalidBody before it is timed.
// Another data folder: SLIPSTREAM_SCHEMA_BENCH_DATA=/path.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

// valijson wants its rapidjson adapter included before any rapidjson header.
#include <valijson/adapters/rapidjson_adapter.hpp>
// (keep the adapter first)
#include <rapidjson/document.h>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "base/arena.h"
#include "json/parse.h"
#include "json/schema/schema.h"

namespace {

using namespace slipstream;

// Breaks a minimum, an exclusiveMinimum, minLength and an enum of the item schema.
constexpr std::string_view kInvalidBody =
    R"({"id":0,"name":"","price":-1,"dimensions":{"width":1,"height":1,"unit":"m"}})";

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path + " (set SLIPSTREAM_SCHEMA_BENCH_DATA)");
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string data_dir() {
    if (const char* dir = std::getenv("SLIPSTREAM_SCHEMA_BENCH_DATA")) return dir;
    return SLIPSTREAM_SCHEMA_BENCH_DEFAULT_DATA;
}

struct Case {
    const char* name;
    std::string document;
    std::string schema;
    std::string invalid;  // a document the schema refuses
};

// Runs `validate(document) -> bool` in the timed loop after checking it accepts the document and (when it
// validates) refuses the invalid one; one iteration is one complete document.
void run_case(benchmark::State& state, const Case& c, const std::function<bool(const std::string&)>& validate,
              bool validates = true) {
    if (!validate(c.document)) return state.SkipWithError("the valid document was refused");
    if (validates && validate(c.invalid)) return state.SkipWithError("the invalid document was accepted");
    for (auto _ : state)
        benchmark::DoNotOptimize(validate(c.document));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.document.size()));
    state.counters["doc_bytes"] = static_cast<double>(c.document.size());
}

void slipstream_parse_validate(benchmark::State& state, const Case& c) {
    base::Arena schema_arena;
    auto schema = json::schema::compile(*json::parse(c.schema, schema_arena).value());
    base::Arena arena;
    run_case(state, c, [&](const std::string& text) {
        arena.reset();  // one arena per request, as the server does
        auto value = json::parse(text, arena);
        return value.is_ok() && schema.validate(*value.value());
    });
}

void slipstream_parse_only(benchmark::State& state, const Case& c) {
    base::Arena arena;
    run_case(
        state, c,
        [&](const std::string& text) {
            arena.reset();
            return json::parse(text, arena).is_ok();
        },
        /*validates=*/false);
}

// valijson::Schema can be neither copied nor moved: filled in place.
void load_valijson_schema(const std::string& text, valijson::Schema& schema) {
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    if (doc.HasParseError()) throw std::runtime_error("schema is not JSON");
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::RapidJsonAdapter adapter(doc);
    parser.populateSchema(adapter, schema);
}

void valijson_rapidjson(benchmark::State& state, const Case& c) {
    valijson::Schema schema;
    load_valijson_schema(c.schema, schema);
    valijson::Validator validator;
    run_case(state, c, [&](const std::string& text) {
        rapidjson::Document doc;  // a fresh document per request: rapidjson's pool only grows
        doc.Parse(text.data(), text.size());
        if (doc.HasParseError()) return false;
        valijson::adapters::RapidJsonAdapter adapter(doc);
        return validator.validate(schema, adapter, nullptr);
    });
}

void valijson_nlohmann(benchmark::State& state, const Case& c) {
    valijson::Schema schema;
    load_valijson_schema(c.schema, schema);
    valijson::Validator validator;
    run_case(state, c, [&](const std::string& text) {
        nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (doc.is_discarded()) return false;
        valijson::adapters::NlohmannJsonAdapter adapter(doc);
        return validator.validate(schema, adapter, nullptr);
    });
}

std::vector<Case> load_cases() {
    const std::string dir = data_dir() + "/";
    const std::string invalid_item = std::string(kInvalidBody);
    return {
        Case{"small", read_file(dir + "item.json"), read_file(dir + "item.schema.json"), invalid_item},
        Case{"large", read_file(dir + "items_64k.json"), read_file(dir + "item_list.schema.json"),
             "[" + invalid_item + "]"},
    };
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    static const std::vector<Case> cases = load_cases();
    using Fn = void (*)(benchmark::State&, const Case&);
    const std::pair<const char*, Fn> contenders[] = {
        {"slipstream", slipstream_parse_validate},
        {"valijson_rapidjson", valijson_rapidjson},
        {"valijson_nlohmann", valijson_nlohmann},
        {"slipstream_parse_only", slipstream_parse_only},
    };
    for (const Case& c : cases)
        for (const auto& [name, fn] : contenders)
            benchmark::RegisterBenchmark((std::string(name) + "/" + c.name).c_str(), fn, c);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
