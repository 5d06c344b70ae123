// The fast mask against the reference and the schema: on a vocabulary rich in the pieces that matter inside and
// around strings (quotes with suffixes, escapes, whole and split UTF-8, control bytes, long runs), random walks over
// allowed tokens must see fill_allowed() equal allows() token by token at every step, every finished output must be
// valid, no walk may dead-end on these schemas, and every tokenization of valid documents must be allowed.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "agent/infer/json_constraint.h"
#include "agent/infer/json_mask_test_cases.h"

namespace slipstream::agent::infer {
namespace {

using mask_test::Case;
using mask_test::cases;
using mask_test::compile;
using mask_test::vocab;
using mask_test::Vocab;

bool closes(std::string_view bytes) {
    return bytes.find_first_of("\"}]") != std::string_view::npos;
}

// Random walks: allowed tokens drawn uniformly, after a while preferring ones that close something; a complete
// output ends with probability one half. The mask (from a cache shared by the case's walks) is compared with
// allows() at every step of the first walks.
// With `precomputed`, the cache starts with the masks JsonConstraint::precompute pins for the schema.
void random_walks(bool precomputed) {
    const Vocab& v = vocab();
    for (const Case& c : cases()) {
        const auto schema = compile(c.schema);
        ASSERT_NE(schema, nullptr);
        int finished = 0, dead_ends = 0;
        std::vector<uint8_t> mask(v.bytes.size() + 2);
        // One mask cache for every walk of the case: later walks meet earlier walks' states in other contexts.
        const auto cache = std::make_shared<JsonMaskCache>(schema, v.tokens);
        if (precomputed) {
            JsonConstraint start(v.tokens, schema, cache);
            JsonConstraint::Precompute p;
            p.width = mask.size();
            EXPECT_GT(start.precompute(p).masks, 0u) << c.name;
        }
        for (uint64_t seed = 1; seed <= 1000; ++seed) {
            std::mt19937_64 rng(seed * 7919 + 13);
            JsonConstraint k(v.tokens, schema, cache);
            const bool compare = seed <= 60;
            const int patience = 4 + static_cast<int>(rng() % 40);
            bool done = false;
            for (int step = 0; step < 400 && !done; ++step) {
                k.fill_allowed(mask);
                std::vector<int32_t> ok, closing;
                for (size_t t = 0; t < mask.size(); ++t) {
                    if (compare) {
                        ASSERT_EQ(mask[t] == 1, k.allows(static_cast<int32_t>(t)))
                            << c.name << ": token " << t << " '" << v.tokens->bytes(static_cast<int32_t>(t))
                            << "' after " << k.text();
                    }
                    if (mask[t] == 0) continue;
                    ok.push_back(static_cast<int32_t>(t));
                    if (closes(v.tokens->bytes(static_cast<int32_t>(t)))) closing.push_back(static_cast<int32_t>(t));
                }
                if (k.complete() && (ok.empty() || rng() % 2 == 0)) {
                    done = true;
                    break;
                }
                if (ok.empty()) break;
                const bool wind_up = step > patience && !closing.empty() && rng() % 4 != 0;
                const std::vector<int32_t>& from = wind_up ? closing : ok;
                k.accept(from[rng() % from.size()]);
            }
            if (done) {
                ++finished;
                EXPECT_TRUE(schema->accepts(k.text())) << c.name << ": " << k.text();
            } else if (!k.complete()) {
                JsonConstraint probe = k;
                probe.fill_allowed(mask);
                if (std::find(mask.begin(), mask.end(), 1) == mask.end()) {
                    ++dead_ends;
                    std::string shown;
                    for (char ch : k.text())
                        shown += ch == '\n' ? std::string("\\n") : ch == '\t' ? std::string("\\t") : std::string(1, ch);
                    int via_allows = 0;
                    for (size_t t = 0; t < mask.size(); ++t)
                        via_allows += probe.allows(static_cast<int32_t>(t)) ? 1 : 0;
                    ADD_FAILURE() << c.name << " dead end after [" << shown << "] allows " << via_allows;
                }
            }
        }
        EXPECT_EQ(dead_ends, 0) << c.name;
        EXPECT_GT(finished, 500) << c.name;
    }
}

TEST(JsonMaskTest, RandomWalksMatchTheReferenceAndEndValid) {
    random_walks(false);
}

TEST(JsonMaskTest, RandomWalksOnPrecomputedMasksMatchTheReferenceAndEndValid) {
    random_walks(true);
}

// Every tokenization of a valid document (random splits into vocabulary tokens) is allowed token by token, by the
// mask and by allows(), and ends complete.
TEST(JsonMaskTest, ValidDocumentsAreNeverRefused) {
    const Vocab& v = vocab();
    std::vector<std::vector<int32_t>> by_first(256);
    for (size_t t = 1; t < v.bytes.size(); ++t)
        by_first[static_cast<unsigned char>(v.bytes[t][0])].push_back(static_cast<int32_t>(t));
    std::vector<uint8_t> mask(v.bytes.size());
    for (const Case& c : cases()) {
        const auto schema = compile(c.schema);
        ASSERT_NE(schema, nullptr);
        for (const char* doc : c.valid) {
            ASSERT_TRUE(schema->accepts(doc)) << c.name << ": " << doc;
            for (uint64_t seed = 1; seed <= 40; ++seed) {
                std::mt19937_64 rng(seed);
                JsonConstraint k(v.tokens, schema);
                const std::string_view rest_all(doc);
                size_t at = 0;
                while (at < rest_all.size()) {
                    const std::string_view rest = rest_all.substr(at);
                    std::vector<int32_t> fits;
                    for (int32_t t : by_first[static_cast<unsigned char>(rest[0])])
                        if (rest.starts_with(v.bytes[static_cast<size_t>(t)])) fits.push_back(t);
                    const int32_t t = fits[rng() % fits.size()];
                    k.fill_allowed(mask);
                    ASSERT_TRUE(k.allows(t)) << c.name << ": '" << v.bytes[t] << "' after " << k.text();
                    ASSERT_EQ(mask[static_cast<size_t>(t)], 1)
                        << c.name << ": '" << v.bytes[t] << "' after " << k.text();
                    k.accept(t);
                    at += v.bytes[static_cast<size_t>(t)].size();
                }
                EXPECT_TRUE(k.complete()) << c.name << ": " << doc;
            }
        }
    }
}

}  // namespace
}  // namespace slipstream::agent::infer
