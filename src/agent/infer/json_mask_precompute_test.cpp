// Precomputed masks (JsonConstraint::precompute): for every state it computed (or derived after a whitespace byte),
// on every test schema, a constraint that reaches that state byte by byte finds the pinned mask (a hit, no new
// entry) and it equals the mask a constraint without a cache computes and allows() token by token; the tokens that
// complete the document are judged on each hit; the options and the pinned budget bound it; pinned masks stay when
// the cache drops others.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agent/infer/json_constraint.h"
#include "agent/infer/json_mask_test_cases.h"
#include "agent/infer/token_mask_bits.h"

namespace slipstream::agent::infer {
namespace {

using mask_test::Case;
using mask_test::cases;
using mask_test::compile;
using mask_test::Vocab;
using mask_test::vocab;

// A constraint fed `text` one single-byte token at a time (rich_vocab's token b is the byte b).
void feed_bytes(JsonConstraint& k, std::string_view text) {
    for (const char ch : text)
        k.accept(static_cast<int32_t>(static_cast<unsigned char>(ch)));
}

std::string shown(std::string_view text) {
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c >= 0x80) {
            static const char* digits = "0123456789abcdef";
            out += "\\x";
            out.push_back(digits[c >> 4]);
            out.push_back(digits[c & 15]);
        } else {
            out.push_back(ch);
        }
    }
    return out;
}

TEST(JsonMaskPrecomputeTest, EveryPrecomputedMaskEqualsTheMaskComputedOnTheFly) {
    const Vocab& v = vocab();
    const size_t width = v.bytes.size() + 3;  // wider than the vocabulary, as logits may be
    size_t derived = 0;                       // masks after a whitespace byte, from the mask before it
    for (const Case& c : cases()) {
        const auto schema = compile(c.schema);
        ASSERT_NE(schema, nullptr);
        const auto cache = std::make_shared<JsonMaskCache>(schema, v.tokens);
        std::vector<std::string> computed;
        JsonConstraint start(v.tokens, schema, cache);
        JsonConstraint::Precompute p;
        p.width = width;
        p.max_masks = 100000;
        p.computed = &computed;
        const JsonConstraint::PrecomputeStats stats = start.precompute(p);
        EXPECT_EQ(stats.masks, computed.size()) << c.name;
        EXPECT_GE(cache->pinned(), stats.masks) << c.name;  // and the closers' suffix verdicts
        EXPECT_EQ(stats.left, 0u) << c.name;
        EXPECT_FALSE(stats.full) << c.name;
        EXPECT_GT(stats.masks, 3u) << c.name;
        derived += stats.derived;
        EXPECT_EQ(start.text(), "");  // left as it was
        const size_t stored = cache->size();
        std::vector<uint8_t> hit(width), fresh(width);
        std::vector<uint32_t> bits((width + 31) / 32);
        for (const std::string& text : computed) {
            JsonConstraint shared(v.tokens, schema, cache);
            JsonConstraint alone(v.tokens, schema, std::make_shared<JsonMaskCache>(schema, v.tokens, 0, 0));
            feed_bytes(shared, text);
            feed_bytes(alone, text);
            const uint64_t hits = cache->hits();
            shared.fill_allowed(hit);
            EXPECT_EQ(cache->hits(), hits + 1) << c.name << ": not pinned after [" << shown(text) << "]";
            alone.fill_allowed(fresh);
            shared.fill_allowed_bits(bits, width);
            for (size_t t = 0; t < width; ++t) {
                ASSERT_EQ(hit[t], fresh[t]) << c.name << ": token " << t << " '" << shown(v.tokens->bytes(t))
                                            << "' after [" << shown(text) << "]";
                ASSERT_EQ(bits[t / 32] >> (t % 32) & 1, hit[t]) << c.name << ": bit " << t;
                ASSERT_EQ(hit[t] == 1, alone.allows(static_cast<int32_t>(t)))
                    << c.name << ": token " << t << " '" << shown(v.tokens->bytes(t)) << "' after [" << shown(text)
                    << "]";
            }
        }
        EXPECT_EQ(cache->size(), stored) << c.name;  // every one of them a hit: nothing computed again
    }
    EXPECT_GT(derived, 10u);  // (the 20-space token tells a run of 1 from none)
}

// A complete document's verdict reads the whole text (a pattern outside the streamed subset here): the pinned mask of
// the state before the closing quote leaves that verdict to each hit.
TEST(JsonMaskPrecomputeTest, TheCompletingTokensVerdictFollowsTheText) {
    const Vocab& v = vocab();
    const auto schema = compile(R"({"type":"string","pattern":"\\bx"})");  // a word boundary: not streamed
    const auto cache = std::make_shared<JsonMaskCache>(schema, v.tokens);
    JsonConstraint start(v.tokens, schema, cache);
    JsonConstraint::Precompute p;
    ASSERT_GT(start.precompute(p).masks, 0u);
    std::vector<uint8_t> mask(v.bytes.size());
    for (const auto& [text, allowed] : std::vector<std::pair<std::string, bool>>{{"\"xa", true}, {"\"ya", false}}) {
        JsonConstraint k(v.tokens, schema, cache);
        feed_bytes(k, text);
        const uint64_t hits = cache->hits();
        k.fill_allowed(mask);
        EXPECT_EQ(cache->hits(), hits + 1) << text;
        EXPECT_EQ(mask['"'] == 1, allowed) << text;
        EXPECT_EQ(k.allows('"'), allowed) << text;
    }
}

TEST(JsonMaskPrecomputeTest, TheLimitsBoundIt) {
    const Vocab& v = vocab();
    const auto schema = compile(cases()[0].schema);
    {
        const auto cache = std::make_shared<JsonMaskCache>(schema, v.tokens);
        JsonConstraint start(v.tokens, schema, cache);
        JsonConstraint::Precompute p;
        p.max_masks = 10;
        const auto stats = start.precompute(p);
        EXPECT_EQ(stats.masks, 10u);
        EXPECT_GT(stats.left, 0u);
        // Again: what is pinned is known, and ten more are computed.
        const auto again = start.precompute(p);
        EXPECT_EQ(again.known, 10u);
        EXPECT_EQ(again.masks, 10u);
    }
    {
        // A second precompute of the same cache finds every state there and pins nothing more.
        const auto cache = std::make_shared<JsonMaskCache>(schema, v.tokens);
        JsonConstraint a(v.tokens, schema, cache), b(v.tokens, schema, cache);
        const auto first = a.precompute(JsonConstraint::Precompute{});
        const size_t pinned = cache->pinned();
        const auto second = b.precompute(JsonConstraint::Precompute{});
        EXPECT_EQ(second.masks, 0u);
        EXPECT_EQ(second.known, first.masks);
        EXPECT_FALSE(second.full);
        EXPECT_EQ(cache->pinned(), pinned);
    }
    {
        // A pinned budget of about three masks: it stops once the cache refuses one.
        const size_t one = mask_words(v.bytes.size()) * sizeof(uint64_t) + 200;
        const auto cache = std::make_shared<JsonMaskCache>(schema, v.tokens, JsonMaskCache::kDefaultMaxBytes, 3 * one);
        JsonConstraint start(v.tokens, schema, cache);
        const auto stats = start.precompute(JsonConstraint::Precompute{});
        EXPECT_TRUE(stats.full);
        EXPECT_GT(stats.left, 0u);
        EXPECT_LE(cache->pinned_bytes(), 3 * one);
    }
    {
        // Keys out of the schema's order: none by default, more states with a detour allowed.
        const auto a = std::make_shared<JsonMaskCache>(schema, v.tokens);
        const auto b = std::make_shared<JsonMaskCache>(schema, v.tokens);
        JsonConstraint in_order(v.tokens, schema, a), detours(v.tokens, schema, b);
        JsonConstraint::Precompute p;
        p.max_masks = 100000;
        const size_t ordered = in_order.precompute(p).masks;
        p.max_detours = 1;
        EXPECT_GT(detours.precompute(p).masks, ordered);
    }
}

TEST(JsonMaskPrecomputeTest, PinnedMasksOutliveTheCachesBudget) {
    const Vocab& v = vocab();
    const auto schema = compile(cases()[0].schema);
    // A cache that keeps nothing of its own: the precomputed masks are still found.
    const auto cache = std::make_shared<JsonMaskCache>(schema, v.tokens, 0);
    JsonConstraint start(v.tokens, schema, cache);
    ASSERT_GT(start.precompute(JsonConstraint::Precompute{}).masks, 0u);
    JsonConstraint k(v.tokens, schema, cache);
    std::vector<uint8_t> mask(v.bytes.size());
    const uint64_t hits = cache->hits();
    k.fill_allowed(mask);  // the start of the document
    EXPECT_EQ(cache->hits(), hits + 1);
    EXPECT_EQ(mask['{'], 1);
    EXPECT_EQ(mask['['], 0);
}

}  // namespace
}  // namespace slipstream::agent::infer
