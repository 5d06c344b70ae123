// Micro-benchmarks: parse (simdjson DOM + tree, strict parser, an On-Demand variant for comparison) and write.
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <string>
#include <vector>

#include "json/format_double.h"
#include "json/parse.h"
#include "json/strict_parser.h"
#include "json/writer.h"

namespace slipstream::json {
namespace {

constexpr std::string_view kEcho = R"({"user":{"name":"test","id":42},"items":[1,2,3],"meta":{"version":"1.0"}})";

// ~64 KiB: an array of user records, as a list endpoint would return.
std::string document_64k() {
    std::string s = "[";
    for (int i = 0; s.size() < 64 * 1024; ++i) {
        if (i > 0) s += ",";
        s += R"({"id":)" + std::to_string(i) + R"(,"name":"user-)" + std::to_string(i) + R"(","email":"user)" +
             std::to_string(i) + R"(@example.com","score":)" + std::to_string(i) + R"(.25,"active":true,)" +
             R"("tags":["a","b\n"],"parent":null})";
    }
    return s + "]";
}

ParseOptions bench_options() {
    ParseOptions o;
    o.max_members = 100'000;
    return o;
}

void run_parse(benchmark::State& state, std::string_view text, bool padded) {
    std::string buffer(text);
    buffer.append(kParsePadding, ' ');
    const std::string_view input = std::string_view(buffer).substr(0, text.size());
    base::Arena arena(128 * 1024);
    const ParseOptions options = bench_options();
    for (auto _ : state) {
        arena.reset();
        auto r = padded ? parse_padded(input, arena, options) : parse(input, arena, options);
        benchmark::DoNotOptimize(r.is_ok());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_ParseEcho(benchmark::State& state) {
    run_parse(state, kEcho, false);
}
void BM_ParseEchoPadded(benchmark::State& state) {
    run_parse(state, kEcho, true);
}
void BM_Parse64K(benchmark::State& state) {
    run_parse(state, document_64k(), false);
}
void BM_Parse64KPadded(benchmark::State& state) {
    run_parse(state, document_64k(), true);
}

void run_strict(benchmark::State& state, std::string_view text) {
    base::Arena arena(128 * 1024);
    const ParseOptions options = bench_options();
    for (auto _ : state) {
        arena.reset();
        auto r = detail::parse_strict(text, arena, options, nullptr);
        benchmark::DoNotOptimize(r.is_ok());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_StrictEcho(benchmark::State& state) {
    run_strict(state, kEcho);
}
void BM_Strict64K(benchmark::State& state) {
    run_strict(state, document_64k());
}

// simdjson alone (no Value tree): the floor for the DOM path.
void run_dom_only(benchmark::State& state, std::string_view text) {
    simdjson::dom::parser parser;
    for (auto _ : state) {
        auto r = parser.parse(text.data(), text.size());
        benchmark::DoNotOptimize(r.error());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_DomOnlyEcho(benchmark::State& state) {
    run_dom_only(state, kEcho);
}
void BM_DomOnly64K(benchmark::State& state) {
    run_dom_only(state, document_64k());
}

// The On-Demand alternative that was measured against the DOM path (not used: counts are unknown up front, so
// it needs scratch stacks, and On-Demand validates only what is visited).
bool build_on_demand(simdjson::ondemand::value v, base::Arena& arena, Value* out) {
    simdjson::ondemand::json_type type;
    if (v.type().get(type)) return false;
    switch (type) {
        case simdjson::ondemand::json_type::array: {
            std::vector<Value> items;
            for (auto element : v.get_array()) {
                simdjson::ondemand::value child;
                if (element.get(child)) return false;
                items.emplace_back();
                if (!build_on_demand(child, arena, &items.back())) return false;
            }
            auto* p = static_cast<Value*>(arena.allocate(items.size() * sizeof(Value) + 1, alignof(Value)));
            std::copy(items.begin(), items.end(), p);
            *out = Value::array(p, static_cast<std::uint32_t>(items.size()));
            return true;
        }
        case simdjson::ondemand::json_type::object: {
            std::vector<Member> members;
            for (auto field : v.get_object()) {
                std::string_view key;
                if (field.unescaped_key().get(key)) return false;
                members.push_back({arena.copy(key), Value()});
                if (!build_on_demand(field.value(), arena, &members.back().value)) return false;
            }
            auto* p = static_cast<Member*>(arena.allocate(members.size() * sizeof(Member) + 1, alignof(Member)));
            std::copy(members.begin(), members.end(), p);
            *out = Value::object(p, static_cast<std::uint32_t>(members.size()));
            return true;
        }
        case simdjson::ondemand::json_type::number: {
            simdjson::ondemand::number n;
            if (v.get_number().get(n)) return false;
            if (n.is_int64()) {
                *out = Value::integer(n.get_int64());
            } else if (n.is_uint64()) {
                *out = Value::unsigned_integer(n.get_uint64());
            } else {
                *out = Value::number(n.get_double());
            }
            return true;
        }
        case simdjson::ondemand::json_type::string: {
            std::string_view s;
            if (v.get_string().get(s)) return false;
            *out = Value::string(arena.copy(s));
            return true;
        }
        case simdjson::ondemand::json_type::boolean: {
            bool b;
            if (v.get_bool().get(b)) return false;
            *out = Value::boolean(b);
            return true;
        }
        case simdjson::ondemand::json_type::null:
            *out = Value::null();
            return true;
    }
    return false;
}

void run_on_demand(benchmark::State& state, std::string_view text) {
    simdjson::ondemand::parser parser;
    simdjson::padded_string padded(text);
    base::Arena arena(128 * 1024);
    for (auto _ : state) {
        arena.reset();
        auto doc = parser.iterate(padded);
        simdjson::ondemand::value root;
        Value v;
        bool ok = !doc.get_value().get(root) && build_on_demand(root, arena, &v);
        benchmark::DoNotOptimize(ok);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_OnDemandEcho(benchmark::State& state) {
    run_on_demand(state, kEcho);
}
void BM_OnDemand64K(benchmark::State& state) {
    run_on_demand(state, document_64k());
}

void run_write(benchmark::State& state, std::string_view text) {
    base::Arena arena(128 * 1024);
    const Value* v = *parse(text, arena, bench_options());
    std::string out;
    for (auto _ : state) {
        out.clear();
        Writer w(out);
        benchmark::DoNotOptimize(w.write_value(*v).is_ok());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}

void BM_WriteEcho(benchmark::State& state) {
    run_write(state, kEcho);
}
void BM_Write64K(benchmark::State& state) {
    run_write(state, document_64k());
}

void BM_WriteEchoExplicit(benchmark::State& state) {
    std::string out;
    for (auto _ : state) {
        out.clear();
        Writer w(out);
        w.begin_object();
        w.key("user");
        w.begin_object();
        w.key("name");
        w.string("test");
        w.key("id");
        w.int64(42);
        w.end_object();
        w.key("items");
        w.begin_array();
        for (int i = 1; i <= 3; ++i)
            w.int64(i);
        w.end_array();
        w.key("meta");
        w.begin_object();
        w.key("version");
        w.string("1.0");
        w.end_object();
        w.end_object();
        benchmark::DoNotOptimize(out.data());
    }
}

void BM_WriteString(benchmark::State& state) {
    const std::string s(static_cast<std::size_t>(state.range(0)), 'a');
    std::string out;
    for (auto _ : state) {
        out.clear();
        Writer(out).string(s);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

void BM_FormatDouble(benchmark::State& state) {
    const double values[] = {0.1, 1.0, 123.456, 1e16, 2.5e-7, 1.7976931348623157e308, 6.02214076e23, 33.25};
    char buf[kMaxDoubleChars];
    for (auto _ : state) {
        for (double d : values)
            benchmark::DoNotOptimize(format_double(d, buf));
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 8));
}

BENCHMARK(BM_ParseEcho);
BENCHMARK(BM_ParseEchoPadded);
BENCHMARK(BM_StrictEcho);
BENCHMARK(BM_DomOnlyEcho);
BENCHMARK(BM_OnDemandEcho);
BENCHMARK(BM_Parse64K);
BENCHMARK(BM_Parse64KPadded);
BENCHMARK(BM_Strict64K);
BENCHMARK(BM_DomOnly64K);
BENCHMARK(BM_OnDemand64K);
BENCHMARK(BM_WriteEcho);
BENCHMARK(BM_WriteEchoExplicit);
BENCHMARK(BM_Write64K);
BENCHMARK(BM_WriteString)->Arg(4)->Arg(64)->Arg(4096);
BENCHMARK(BM_FormatDouble);

}  // namespace
}  // namespace slipstream::json

BENCHMARK_MAIN();
