// slipstream-grammar-bench: grammar-constrained decoding over a real vocabulary (a GGUF file's tokenizer), for
// bench/grammar_mask.py. Two modes:
//   VOCAB.gguf --tokens           the vocabulary as JSON (each token's bytes in hex, specials, eos), for the peers
//   VOCAB.gguf CASES.json [--walks N] [--verify N] [--seed S] [--precompute MASKS]
//                                 per case (a schema and documents): compile times, then each document tokenized
//                                 (no BOS) and replayed token by token, timing the full mask before each token, as
//                                 bits (fill_allowed_bits, the peers' form) and then, from a fresh mask cache, as a
//                                 byte per token (fill_allowed); then N random walks over allowed tokens (bytes,
//                                 timed the same way, one mask cache per case), the first --verify of them checking
//                                 the mask against allows() token by token.
// Times are microseconds of one thread; every sample is printed (the script computes percentiles).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "agent/infer/gguf_file.h"
#include "agent/infer/json_constraint.h"
#include "agent/infer/tokenizer.h"
#include "agent/structured/compiled_schema.h"
#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace {

using namespace slipstream;
using namespace slipstream::agent::infer;
using Clock = std::chrono::steady_clock;

double micros(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
}

// This thread's CPU time in microseconds (what a mask cost, whatever else ran on the core meanwhile).
double thread_cpu_us() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

std::string hex(std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out.push_back(digits[c >> 4]);
        out.push_back(digits[c & 15]);
    }
    return out;
}

void samples(json::Writer& w, std::string_view name, const std::vector<double>& v) {
    w.key(name);
    w.begin_array();
    for (double d : v)
        (void)w.number(std::round(d * 1000) / 1000);
    w.end_array();
}

int dump_tokens(const Tokenizer& tok) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("vocab_size");
    w.int64(tok.vocab_size());
    w.key("eos");
    w.int64(tok.eos());
    w.key("stop_tokens");
    w.begin_array();
    for (int32_t t : tok.stop_tokens())
        w.int64(t);
    w.end_array();
    w.key("tokens");  // hex bytes; specials: their text, listed in "special"
    w.begin_array();
    std::vector<int32_t> special;
    for (int64_t t = 0; t < tok.vocab_size(); ++t) {
        std::string bytes = tok.decode(static_cast<int32_t>(t));
        if (bytes.empty()) {
            bytes = tok.decode(static_cast<int32_t>(t), true);
            special.push_back(static_cast<int32_t>(t));
        }
        w.string(hex(bytes));
    }
    w.end_array();
    w.key("special");
    w.begin_array();
    for (int32_t t : special)
        w.int64(t);
    w.end_array();
    w.end_object();
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

// The tokenizer's ids for `text` when they decode to exactly it (a SentencePiece tokenizer adds a leading space),
// else the longest token at each position.
std::vector<int32_t> tokenize(const Tokenizer& tok, const TokenBytes& tokens, std::string_view text) {
    std::vector<int32_t> ids = tok.encode(text, false, false);
    std::string back;
    for (int32_t id : ids)
        back += tokens.bytes(id);
    if (back == text) return ids;
    ids.clear();
    for (size_t at = 0; at < text.size();) {
        size_t best = 0;
        int32_t best_id = -1;
        const auto [lo, hi] = tokens.first_byte_range(static_cast<unsigned char>(text[at]));
        for (uint32_t i = lo; i < hi; ++i) {
            const int32_t t = tokens.order()[i];
            const std::string_view b = tokens.bytes(t);
            if (b.size() > best && text.substr(at).starts_with(b)) {
                best = b.size();
                best_id = t;
            }
        }
        if (best_id < 0) break;
        ids.push_back(best_id);
        at += best;
    }
    return ids;
}

struct Options {
    int walks = 20;
    int verify = 2;
    uint64_t seed = 1;
    int max_steps = 300;
    int precompute = 1024;  // masks precomputed per schema at most (0: none)
};

// One random walk: allowed tokens drawn uniformly, after `patience` steps mostly ones that close a string, an
// object or an array; ends once complete (half the time at each chance) or at max_steps.
void walk(const std::shared_ptr<const TokenBytes>& tokens,
          const std::shared_ptr<const agent::structured::CompiledSchema>& schema, std::mt19937_64& rng,
          const std::shared_ptr<JsonMaskCache>& cache, const Options& o, bool verify, std::vector<double>& times,
          int64_t& mismatches, int& finished, int& dead_ends) {
    JsonConstraint c(tokens, schema, cache);
    std::vector<uint8_t> mask(static_cast<size_t>(tokens->size()));
    const int patience = 4 + static_cast<int>(rng() % 40);
    std::vector<int32_t> taken;
    for (int step = 0; step < o.max_steps; ++step) {
        const auto t0 = Clock::now();
        c.fill_allowed(mask);
        times.push_back(micros(t0, Clock::now()));
        if (const char* tr = std::getenv("GRAMMAR_BENCH_TRACE"); tr != nullptr && times.back() > std::atof(tr)) {
            double best = times.back();
            for (int r = 0; r < 5; ++r) {
                const auto a = Clock::now();
                c.fill_allowed(mask);
                best = std::min(best, micros(a, Clock::now()));
            }
            std::string ids;
            for (int32_t id : taken)
                ids += std::to_string(id) + " ";
            std::fprintf(stderr, "slow %.0f us (best of 5 more: %.0f) after [%s] ids %s\n", times.back(), best,
                         c.text().c_str(), ids.c_str());
        }
        std::vector<int32_t> ok, closing;
        for (size_t t = 0; t < mask.size(); ++t) {
            if (verify && (mask[t] == 1) != c.allows(static_cast<int32_t>(t))) {
                ++mismatches;
                if (std::getenv("GRAMMAR_BENCH_TRACE") != nullptr)
                    std::fprintf(stderr, "mismatch token %zu [%s] mask %d after [%s]\n", t,
                                 std::string(tokens->bytes(static_cast<int32_t>(t))).c_str(), mask[t],
                                 c.text().c_str());
            }
            if (mask[t] == 0) continue;
            ok.push_back(static_cast<int32_t>(t));
            const std::string_view b = tokens->bytes(static_cast<int32_t>(t));
            if (b.find_first_of("\"}]") != std::string_view::npos) closing.push_back(static_cast<int32_t>(t));
        }
        if (c.complete() && (ok.empty() || rng() % 2 == 0)) {
            ++finished;
            if (!schema->accepts(c.text())) ++mismatches;  // an invalid output counts as a wrong mask
            return;
        }
        if (ok.empty()) {
            ++dead_ends;
            return;
        }
        const bool wind_up = step > patience && !closing.empty() && rng() % 4 != 0;
        const std::vector<int32_t>& from = wind_up ? closing : ok;
        taken.push_back(from[rng() % from.size()]);
        c.accept(taken.back());
    }
}

int run_cases(const Tokenizer& tok, const std::string& cases_path, const Options& o) {
    std::ifstream in(cases_path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    base::Arena arena;
    auto parsed = json::parse(text, arena);
    if (!parsed.is_ok() || !(*parsed)->is_array()) {
        std::fprintf(stderr, "grammar-bench: %s is not a JSON array of cases\n", cases_path.c_str());
        return 2;
    }
    const auto t0 = Clock::now();
    std::vector<std::string> bytes(static_cast<size_t>(tok.vocab_size()));
    for (size_t t = 0; t < bytes.size(); ++t)
        bytes[t] = tok.decode(static_cast<int32_t>(t));
    auto tokens = std::make_shared<const TokenBytes>(std::move(bytes));
    const double prep_us = micros(t0, Clock::now());

    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("vocab_size");
    w.int64(tokens->size());
    w.key("vocab_prep_ms");
    (void)w.number(prep_us / 1000);
    w.key("cases");
    w.begin_array();
    std::mt19937_64 rng(o.seed);
    for (const json::Value& c : (*parsed)->items()) {
        const json::Value* name = c.find("name");
        const json::Value* schema_text = c.find("schema");
        const json::Value* docs = c.find("documents");
        if (name == nullptr || schema_text == nullptr || docs == nullptr) continue;
        w.begin_object();
        w.key("name");
        w.string(name->as_string());
        // Compile: the schema's compilation and a constraint ready for its first mask (best of 5 and the first);
        // then (unless --precompute 0) the masks precomputed for it into a fresh cache (JsonConstraint::precompute,
        // timed apart, the first and the best of 3), the cache the replay starts from.
        std::vector<double> compile, precompute, precompute_cpu;
        std::shared_ptr<const agent::structured::CompiledSchema> schema;
        for (int k = 0; k < 5; ++k) {
            const auto a = Clock::now();
            auto s = agent::structured::CompiledSchema::create(schema_text->as_string());
            if (!s.is_ok()) break;
            JsonConstraint ready(tokens, *s);
            compile.push_back(micros(a, Clock::now()));
            schema = *s;
        }
        const auto vocab = static_cast<size_t>(tokens->size());
        std::shared_ptr<JsonMaskCache> precomputed;  // the last one timed
        JsonConstraint::PrecomputeStats pre;
        for (int k = 0; schema != nullptr && o.precompute > 0 && k < 3; ++k) {
            const double c0 = thread_cpu_us();
            const auto a = Clock::now();
            auto cache = std::make_shared<JsonMaskCache>(schema, tokens);
            JsonConstraint ready(tokens, schema, cache);
            JsonConstraint::Precompute p;
            p.max_masks = static_cast<size_t>(o.precompute);
            p.width = vocab;
            pre = ready.precompute(p);
            precompute.push_back(micros(a, Clock::now()));
            precompute_cpu.push_back(thread_cpu_us() - c0);
            precomputed = cache;
        }
        if (schema == nullptr) {
            w.key("error");
            w.string("schema does not compile");
            w.end_object();
            continue;
        }
        samples(w, "compile_us", compile);
        samples(w, "precompute_us", precompute);
        samples(w, "precompute_cpu_us", precompute_cpu);
        w.key("precomputed_masks");
        w.int64(static_cast<int64_t>(pre.masks));
        w.key("precomputed_derived");
        w.int64(static_cast<int64_t>(pre.derived));
        w.key("precompute_left");
        w.int64(static_cast<int64_t>(pre.left));
        w.key("precompute_full");
        w.boolean(pre.full);
        w.key("precomputed_bytes");
        w.int64(precomputed != nullptr ? static_cast<int64_t>(precomputed->pinned_bytes()) : 0);
        if (const char* state = std::getenv("GRAMMAR_BENCH_STATE"); state != nullptr) {  // profile one state
            // A mask cache that keeps nothing: each mask is computed (GRAMMAR_BENCH_CACHED=1: the cache's hits).
            const bool cached = std::getenv("GRAMMAR_BENCH_CACHED") != nullptr;
            JsonConstraint k(
                tokens, schema,
                std::make_shared<JsonMaskCache>(schema, tokens, cached ? JsonMaskCache::kDefaultMaxBytes : 0));
            if (const char* ids = std::getenv("GRAMMAR_BENCH_IDS"); ids != nullptr) {
                std::istringstream in(ids);
                for (int32_t id = 0; in >> id;)
                    k.accept(id);
            } else {
                for (int32_t id : tok.encode(state, false, false))
                    k.accept(id);
            }
            std::vector<uint8_t> m(static_cast<size_t>(tokens->size()));
            const auto first = Clock::now();
            k.fill_allowed(m);
            std::fprintf(stderr, "first mask: %.1f us\n", micros(first, Clock::now()));
            const auto a = Clock::now();
            const std::clock_t cpu = std::clock();
            const char* loops_env = std::getenv("GRAMMAR_BENCH_LOOPS");
            const int loops = loops_env != nullptr ? std::max(1, std::atoi(loops_env)) : 2000;
            for (int r = 0; r < loops; ++r)
                k.fill_allowed(m);
            std::fprintf(stderr, "state [%s]: %.2f us per mask (%.2f us of CPU)\n", k.text().c_str(),
                         micros(a, Clock::now()) / loops,
                         1e6 * static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC / loops);
        }
        // Replay: each document's tokenization, the mask before each token: as bits (the peers' form, timed in
        // replay_*), then again from a fresh cache as a byte per token (replay_bytes_*). One mask cache per schema,
        // as the engine keeps one (InferenceEngine::mask_cache): the documents share it.
        std::vector<std::vector<int32_t>> doc_ids;
        for (const json::Value& d : docs->items())
            doc_ids.push_back(tokenize(tok, *tokens, d.as_string()));
        w.key("documents");
        w.begin_array();
        for (const auto& ids : doc_ids) {
            w.begin_array();
            for (int32_t id : ids)
                w.int64(id);
            w.end_array();
        }
        w.end_array();
        const auto fresh_cache = [&] {
            auto cache = std::make_shared<JsonMaskCache>(schema, tokens);
            if (o.precompute > 0) {
                JsonConstraint start(tokens, schema, cache);
                JsonConstraint::Precompute p;
                p.max_masks = static_cast<size_t>(o.precompute);
                p.width = vocab;
                start.precompute(p);
            }
            return cache;
        };
        int64_t refused = 0;
        for (const bool as_bits : {true, false}) {
            std::vector<double> times, cpu;
            std::vector<uint8_t> mask(vocab);
            std::vector<uint32_t> bits((vocab + 31) / 32);
            // The precomputed masks (pinned) and room for the masks computed on the way.
            const auto cache = fresh_cache();
            for (const auto& ids : doc_ids) {
                JsonConstraint k(tokens, schema, cache);
                for (int32_t id : ids) {
                    const uint64_t misses = cache->misses();
                    const double c0 = thread_cpu_us();
                    const auto a = Clock::now();
                    if (as_bits) {
                        k.fill_allowed_bits(bits, vocab);
                    } else {
                        k.fill_allowed(mask);
                    }
                    times.push_back(micros(a, Clock::now()));
                    cpu.push_back(thread_cpu_us() - c0);
                    if (const char* tr = std::getenv("GRAMMAR_BENCH_TRACE");
                        tr != nullptr && cpu.back() > std::atof(tr))
                        std::fprintf(stderr, "replay slow %.0f us (CPU %.0f, %s) after [%s]\n", times.back(),
                                     cpu.back(), cache->misses() != misses ? "computed" : "cached", k.text().c_str());
                    const auto t = static_cast<size_t>(id);
                    if (as_bits ? (bits[t / 32] >> (t % 32) & 1) == 0 : mask[t] == 0) ++refused;
                    k.accept(id);
                }
                if (!k.complete()) ++refused;
            }
            samples(w, as_bits ? "replay_mask_us" : "replay_bytes_mask_us", times);
            samples(w, as_bits ? "replay_cpu_us" : "replay_bytes_cpu_us", cpu);
            if (as_bits) {
                w.key("cache_masks");
                w.int64(static_cast<int64_t>(cache->size()));
                w.key("cache_bytes");
                w.int64(static_cast<int64_t>(cache->bytes()));
            }
        }
        w.key("replay_refused");
        w.int64(refused);
        // Random walks.
        std::vector<double> walk_times;
        int64_t mismatches = 0;
        int finished = 0, dead_ends = 0;
        const auto walk_cache = fresh_cache();
        for (int i = 0; i < o.walks; ++i)
            walk(tokens, schema, rng, walk_cache, o, i < o.verify, walk_times, mismatches, finished, dead_ends);
        samples(w, "walk_mask_us", walk_times);
        w.key("walks");
        w.int64(o.walks);
        w.key("walks_finished");
        w.int64(finished);
        w.key("walk_dead_ends");
        w.int64(dead_ends);
        w.key("verify_walks");
        w.int64(std::min(o.walks, o.verify));
        w.key("mask_mismatches");
        w.int64(mismatches);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: slipstream-grammar-bench VOCAB.gguf --tokens\n"
                     "       slipstream-grammar-bench VOCAB.gguf CASES.json [--walks N] [--verify N] [--seed S]"
                     " [--precompute MASKS]\n");
        return 2;
    }
    auto file = GgufFile::open(argv[1]);
    if (!file.is_ok()) {
        std::fprintf(stderr, "grammar-bench: %s\n", file.status().message().c_str());
        return 1;
    }
    auto tok = Tokenizer::from_gguf(**file);
    if (!tok.is_ok()) {
        std::fprintf(stderr, "grammar-bench: %s\n", tok.status().message().c_str());
        return 1;
    }
    if (std::strcmp(argv[2], "--tokens") == 0) return dump_tokens(**tok);
    Options o;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--walks") == 0) o.walks = std::atoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--verify") == 0) o.verify = std::atoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--seed") == 0) o.seed = std::strtoull(argv[i + 1], nullptr, 10);
        if (std::strcmp(argv[i], "--precompute") == 0) o.precompute = std::atoi(argv[i + 1]);
    }
    return run_cases(**tok, argv[2], o);
}
