// The per-state mask cache: a hit gives the mask a fresh computation gives, across states that differ only in what
// the key leaves out (a free string's text, a number's digits), with document-completing tokens judged again; bits
// and bytes agree; the cache keeps to its budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "agent/infer/json_constraint.h"
#include "agent/infer/token_mask_bits.h"

namespace slipstream::agent::infer {
namespace {

std::vector<std::string> small_vocab() {
    std::vector<std::string> out = {""};  // token 0: end of sequence
    for (int b = 1; b < 128; ++b)
        out.emplace_back(1, static_cast<char>(b));
    for (const char* p : {"\"}", "\",", "\":",  "{\"",  "\":\"", "\",\"", "\"]",      "\"]}", "}",  "},",  "1.5", "2.5",
                          "22",  "1}",  "5}",   "0.",   ".0",    "00",    "\xC3\xA9", "ab",   "xy", " ",   "\n",  "\"a",
                          "\"n", "\"s", "true", "null", "[\"",   "\"}]",  "12",       "345",  "e5", ".5}", "0}",  "-1"})
        out.emplace_back(p);
    return out;
}

std::shared_ptr<const structured::CompiledSchema> compile(const char* schema) {
    auto s = structured::CompiledSchema::create(schema);
    EXPECT_TRUE(s.is_ok()) << schema;
    return s.is_ok() ? *s : nullptr;
}

std::vector<int32_t> ids_of(const std::vector<std::string>& vocab, const std::vector<std::string>& pieces) {
    std::vector<int32_t> ids;
    for (const std::string& p : pieces) {
        for (size_t t = 0; t < vocab.size(); ++t)
            if (vocab[t] == p) ids.push_back(static_cast<int32_t>(t));
    }
    EXPECT_EQ(ids.size(), pieces.size());
    return ids;
}

// The mask after `pieces` from a constraint that shares `cache`, and from one whose cache keeps nothing.
void expect_same(const std::shared_ptr<const TokenBytes>& tokens, const std::vector<std::string>& vocab,
                 const std::shared_ptr<const structured::CompiledSchema>& schema,
                 const std::shared_ptr<JsonMaskCache>& cache, const std::vector<std::string>& pieces) {
    JsonConstraint shared(tokens, schema, cache);
    JsonConstraint fresh(tokens, schema, std::make_shared<JsonMaskCache>(schema, tokens, 0));
    std::string text;
    for (int32_t id : ids_of(vocab, pieces)) {
        shared.accept(id);
        fresh.accept(id);
        text += vocab[static_cast<size_t>(id)];
    }
    std::vector<uint8_t> a(vocab.size()), b(vocab.size());
    shared.fill_allowed(a);
    fresh.fill_allowed(b);
    for (size_t t = 0; t < vocab.size(); ++t)
        ASSERT_EQ(a[t], b[t]) << "token '" << vocab[t] << "' after " << text;
    std::vector<uint32_t> bits((vocab.size() + 31) / 32, 0xffffffffu);
    shared.fill_allowed_bits(bits, vocab.size());
    for (size_t t = 0; t < vocab.size(); ++t)
        ASSERT_EQ(bits[t / 32] >> (t % 32) & 1, b[t]) << "bit of '" << vocab[t] << "' after " << text;
    for (size_t t = vocab.size(); t < bits.size() * 32; ++t)
        ASSERT_EQ(bits[t / 32] >> (t % 32) & 1, 0u) << t;
}

// After "x" + "ab" and after "y" + "ab" in the string of `{"s": ...}`: the second state's key is the first one's
// (a hit, nothing stored), and both masks equal a fresh computation. Returns the cache's size after the first.
size_t expect_shared_key(const std::vector<std::string>& vocab, const char* schema_text) {
    const auto tokens = std::make_shared<TokenBytes>(vocab);
    const auto schema = compile(schema_text);
    const auto cache = std::make_shared<JsonMaskCache>(schema, tokens);
    expect_same(tokens, vocab, schema, cache, {"{\"", "s", "\":\"", "x", "ab"});
    const size_t stored = cache->size();
    const uint64_t hits = cache->hits();
    expect_same(tokens, vocab, schema, cache, {"{\"", "s", "\":\"", "y", "ab"});  // the same key: a hit
    EXPECT_EQ(cache->size(), stored);
    EXPECT_GT(cache->hits(), hits);
    return stored;
}

TEST(JsonMaskCacheTest, AStringsTextIsLeftOutButTheDocumentsVerdictIsNot) {
    const std::vector<std::string> vocab = small_vocab();
    const auto tokens = std::make_shared<TokenBytes>(vocab);
    // A pattern outside the streamed subset (a word boundary) is checked only on the whole document: `"}` completes
    // it after "x..." and not after "y...".
    const char* text = R"({"type":"object","required":["s"],"additionalProperties":false,
                           "properties":{"s":{"type":"string","pattern":"\\bx"}}})";
    expect_shared_key(vocab, text);
    const auto schema = compile(text);
    const auto cache = std::make_shared<JsonMaskCache>(schema, tokens);
    expect_same(tokens, vocab, schema, cache, {"{\"", "s", "\":\"", "x", "xy"});
    expect_same(tokens, vocab, schema, cache, {"{\"", "s", "\":\"", "\xC3\xA9"});
}

// A pattern the stream checks keys the string by its automaton's states: two texts at the same point of the pattern
// share a mask, and one at another point does not.
TEST(JsonMaskCacheTest, APatternsStringIsKeyedByItsStates) {
    const std::vector<std::string> vocab = small_vocab();
    const auto tokens = std::make_shared<TokenBytes>(vocab);
    const char* text = R"({"type":"object","required":["s"],"additionalProperties":false,
                           "properties":{"s":{"type":"string","pattern":"^[a-z]+-\\d$","maxLength":9}}})";
    expect_shared_key(vocab, text);
    const auto schema = compile(text);
    const auto cache = std::make_shared<JsonMaskCache>(schema, tokens);
    expect_same(tokens, vocab, schema, cache, {"{\"", "s", "\":\"", "x", "ab"});
    const size_t stored = cache->size();
    expect_same(tokens, vocab, schema, cache, {"{\"", "s", "\":\"", "x", "ab", "-"});  // after the '-': new states
    EXPECT_GT(cache->size(), stored);
    // 7 letters: only '-' may follow (or an escape that may be one), then a digit.
    expect_same(tokens, vocab, schema, cache, {"{\"", "s", "\":\"", "ab", "ab", "ab", "x"});
    JsonConstraint k(tokens, schema, cache);
    for (int32_t id : ids_of(vocab, {"{\"", "s", "\":\"", "ab", "ab", "ab", "x"}))
        k.accept(id);
    std::vector<uint8_t> mask(vocab.size());
    k.fill_allowed(mask);
    for (size_t t = 0; t < vocab.size(); ++t)
        EXPECT_EQ(mask[t] == 1, vocab[t] == "-" || vocab[t] == "-1" || vocab[t] == "\\") << vocab[t];
}

TEST(JsonMaskCacheTest, ANumbersDigitsAreLeftOutWhereNothingReadsTheValue) {
    const std::vector<std::string> vocab = small_vocab();
    const auto tokens = std::make_shared<TokenBytes>(vocab);
    // enum on numbers is checked only on the whole document; integer bounds are checked on the prefix.
    const auto schema = compile(R"({"type":"object","required":["n"],"additionalProperties":false,
                                    "properties":{"n":{"type":"number","enum":[1.5,22,100]},
                                                  "k":{"type":"integer","minimum":10,"maximum":20}}})");
    const auto cache = std::make_shared<JsonMaskCache>(schema, tokens);
    for (const std::vector<std::string>& doc :
         std::vector<std::vector<std::string>>{{"{\"", "n", "\":", "1.5"},
                                               {"{\"", "n", "\":", "2.5"},
                                               {"{\"", "n", "\":", "22"},
                                               {"{\"", "n", "\":", "12"},
                                               {"{\"", "n", "\":", "1", "0"},
                                               {"{\"", "n", "\":", "1", "00"},
                                               {"{\"", "n", "\":", "1", "0."},
                                               {"{\"", "n", "\":", "1", "0.", "5"},
                                               {"{\"", "n", "\":", "-1"},
                                               {"{\"", "n", "\":", "-", "0"},
                                               {"{\"", "k", "\":", "1"},
                                               {"{\"", "k", "\":", "2"},
                                               {"{\"", "k", "\":", "3"}})
        expect_same(tokens, vocab, schema, cache, doc);
}

// Open containers at the end of a JSON prefix.
size_t nesting(std::string_view text) {
    size_t depth = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return depth;
}

// Random walks on one cache: each step's mask equals a fresh computation's (states differing in context meet).
TEST(JsonMaskCacheTest, RandomWalksOnASharedCacheMatchFreshMasks) {
    const std::vector<std::string> vocab = small_vocab();
    const auto tokens = std::make_shared<TokenBytes>(vocab);
    for (const char* text : {R"({"type":"object","required":["a","n"],"additionalProperties":false,
                                "properties":{"a":{"type":"array","items":{"type":"string","maxLength":3}},
                                              "n":{"anyOf":[{"type":"number"},{"type":"null"}]}}})",
                             R"({"type":"array","maxItems":4,"items":{"type":"string","pattern":"^a"}})",
                             // Nesting past the key's window of innermost containers.
                             R"({"$defs":{"n":{"type":"object","additionalProperties":false,
                                               "properties":{"a":{"type":"array","items":{"$ref":"#/$defs/n"}},
                                                             "n":{"anyOf":[{"type":"integer","maximum":5},
                                                                           {"type":"null"}]}}}},
                                 "$ref":"#/$defs/n"})"}) {
        const auto schema = compile(text);
        const auto cache = std::make_shared<JsonMaskCache>(schema, tokens);
        std::vector<uint8_t> a(vocab.size()), b(vocab.size());
        size_t deepest = 0;
        for (uint64_t seed = 1; seed <= 150; ++seed) {
            std::mt19937_64 rng(seed);
            JsonConstraint shared(tokens, schema, cache);
            JsonConstraint fresh(tokens, schema, std::make_shared<JsonMaskCache>(schema, tokens, 0));
            for (int step = 0; step < 60; ++step) {
                shared.fill_allowed(a);
                fresh.fill_allowed(b);
                ASSERT_EQ(a, b) << "after " << shared.text();
                std::vector<int32_t> ok;
                for (size_t t = 0; t < a.size(); ++t)
                    if (a[t] != 0) ok.push_back(static_cast<int32_t>(t));
                if (ok.empty() || (shared.complete() && rng() % 3 == 0)) break;
                // Mostly tokens that open something, so that walks nest deep.
                std::vector<int32_t> opening;
                for (int32_t t : ok)
                    if (vocab[static_cast<size_t>(t)].find_first_of("{[") != std::string::npos) opening.push_back(t);
                const std::vector<int32_t>& from = !opening.empty() && rng() % 3 == 0 ? opening : ok;
                const int32_t t = from[rng() % from.size()];
                shared.accept(t);
                fresh.accept(t);
                deepest = std::max(deepest, nesting(shared.text()));
            }
        }
        EXPECT_GT(cache->hits(), 0u);
        if (std::string_view(text).find("$defs") != std::string_view::npos) {
            EXPECT_GT(deepest, 4u) << text;  // past the window (the vocabulary closes at most 2 containers a token)
        }
    }
}

TEST(JsonMaskCacheTest, KeepsToItsBudgetDroppingTheLeastRecent) {
    const std::vector<std::string> vocab = small_vocab();
    const auto tokens = std::make_shared<TokenBytes>(vocab);
    const auto schema = compile(R"({"type":"string"})");
    JsonMaskCache cache(schema, tokens, 1000);
    const auto mask = [] {
        auto m = std::make_shared<CachedMask>();
        m->width = 640;
        m->bits.resize(10);
        return m;
    };
    cache.insert("a", mask());
    cache.insert("b", mask());
    EXPECT_NE(cache.find("a"), nullptr);  // now the most recent
    for (int i = 0; i < 5; ++i)
        cache.insert("k" + std::to_string(i), mask());
    EXPECT_LE(cache.bytes(), 1000u);
    EXPECT_EQ(cache.find("b"), nullptr);
    EXPECT_LT(cache.size(), 7u);
    JsonMaskCache none(schema, tokens, 0);
    none.insert("a", mask());
    EXPECT_EQ(none.size(), 0u);
    EXPECT_EQ(none.find("a"), nullptr);
    EXPECT_TRUE(cache.serves(schema.get(), tokens.get()));
    EXPECT_FALSE(cache.serves(compile(R"({"type":"string"})").get(), tokens.get()));
}

TEST(TokenMaskBitsTest, PackAndExpandRoundTrip) {
    std::mt19937_64 rng(3);
    for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{63}, size_t{64}, size_t{65}, size_t{200},
                     size_t{1000}, size_t{4097}}) {
        std::vector<uint8_t> bytes(n);
        for (auto& b : bytes)
            b = rng() % 3 == 0 ? static_cast<uint8_t>(1 + rng() % 255) : 0;
        std::vector<uint64_t> bits(mask_words(n), ~uint64_t{0});
        pack_mask(bytes, bits);
        for (size_t i = 0; i < bits.size() * 64; ++i)
            ASSERT_EQ(bits[i / 64] >> (i % 64) & 1, i < n && bytes[i] != 0 ? 1u : 0u) << n << " " << i;
        std::vector<uint8_t> back(n, 7);
        expand_mask(bits, back);
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(back[i], bytes[i] != 0 ? 1 : 0) << n << " " << i;
    }
}

}  // namespace
}  // namespace slipstream::agent::infer
