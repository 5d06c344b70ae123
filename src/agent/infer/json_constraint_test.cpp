// JsonConstraint over a tiny vocabulary: which tokens it allows, its full mask against per-token checks on random
// walks, completion and the whole-document verdict, the whitespace bound; TokenBytes' order and ranges.
#include "agent/infer/json_constraint.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace slipstream::agent::infer {
namespace {

// Token 0 is the end of sequence (no bytes); the rest single bytes and a few longer pieces of JSON.
std::vector<std::string> tiny_vocab() {
    return {"",     "{",    "}",    "[",  "]",      "\"",    ":",       ",",     " ",    "\n",   "0",    "1",   "2",
            "5",    "-",    ".",    "a",  "b",      "c",     "e",       "m",     "n",    "x",    "z",    "r",   "d",
            "g",    "l",    "u",    "t",  "\"name", "\"age", "\"color", "\":",   "{\"",  "\"}",  "\",",  "red", "green",
            "blue", "true", "null", "na", "me",     "ag",    "col",     "or",    "  ",   "\\",   "e1",   "9",   "x\"",
            "q",    "w",    "y",    "k",  "i",      "o",     "s",       "\"}\n", "\xC3", "\xA9", "\xEF", "}}"};
}

constexpr const char* kPerson =
    R"({"type":"object","required":["name","age","color"],"additionalProperties":false,
       "properties":{"name":{"type":"string","maxLength":6},"age":{"type":"integer","minimum":0},
                     "color":{"enum":["red","green","blue"]}}})";

struct Fixture {
    std::vector<std::string> vocab = tiny_vocab();
    std::shared_ptr<const TokenBytes> tokens = std::make_shared<TokenBytes>(vocab);
    std::shared_ptr<const structured::CompiledSchema> schema;
    explicit Fixture(const char* schema_json) {
        auto s = structured::CompiledSchema::create(schema_json);
        EXPECT_TRUE(s.is_ok());
        schema = *s;
    }
    int32_t id(std::string_view bytes) const {
        for (size_t t = 0; t < vocab.size(); ++t)
            if (vocab[t] == bytes) return static_cast<int32_t>(t);
        ADD_FAILURE() << "no token " << bytes;
        return -1;
    }
    JsonConstraint make() const { return JsonConstraint(tokens, schema); }
};

TEST(TokenBytesTest, SortsByBytesWithSharedPrefixesAndFirstByteRanges) {
    TokenBytes t({"", "ab", "a", "b", "abc", "\xC3"});
    EXPECT_EQ(t.order(), (std::vector<int32_t>{2, 1, 4, 3, 5}));  // "a" "ab" "abc" "b" "\xC3"; "" left out
    EXPECT_EQ(t.shared_prefix(), (std::vector<uint32_t>{1, 2, 0, 0, 0}));
    EXPECT_EQ(t.first_byte_range('a'), (std::pair<uint32_t, uint32_t>{0, 3}));
    EXPECT_EQ(t.first_byte_range('b'), (std::pair<uint32_t, uint32_t>{3, 4}));
    EXPECT_EQ(t.first_byte_range(0xC3), (std::pair<uint32_t, uint32_t>{4, 5}));
    EXPECT_EQ(t.first_byte_range('c'), (std::pair<uint32_t, uint32_t>{4, 4}));
    EXPECT_EQ(t.bytes(7), "");
    EXPECT_EQ(t.second_byte_range('a', 'b'), (std::pair<uint32_t, uint32_t>{1, 3}));  // "ab" "abc"
    EXPECT_EQ(t.second_byte_range('a', 0).first, 1u);                                 // after "a" itself
    EXPECT_EQ(t.prefix_range("ab"), (std::pair<uint32_t, uint32_t>{1, 3}));
    EXPECT_EQ(t.prefix_range("abd"), (std::pair<uint32_t, uint32_t>{3, 3}));
    EXPECT_EQ(t.past_prefix(0, 5, "a"), 3u);
    EXPECT_EQ(t.at(2), "abc");
    EXPECT_EQ(t.max_bytes(), 3u);
    TokenBytes d({"12", "1a", "7"});
    EXPECT_TRUE(d.all_digits_at(0));   // "12"
    EXPECT_FALSE(d.all_digits_at(1));  // "1a"
    EXPECT_TRUE(d.all_digits_at(2));   // "7"
}

TEST(JsonConstraintTest, AllowsOnlyPrefixesOfAValidDocument) {
    Fixture f(kPerson);
    JsonConstraint c = f.make();
    EXPECT_FALSE(c.allows(0));  // no bytes
    EXPECT_FALSE(c.allows(f.id("[")));
    EXPECT_FALSE(c.allows(f.id("\xEF")));  // a byte-order mark's first byte
    EXPECT_TRUE(c.allows(f.id(" ")));
    EXPECT_TRUE(c.allows(f.id("{\"")));
    c.accept(f.id("{\""));
    EXPECT_TRUE(c.allows(f.id("na")));
    EXPECT_TRUE(c.allows(f.id("col")));
    EXPECT_FALSE(c.allows(f.id("x")));   // no property starts with "x"
    EXPECT_FALSE(c.allows(f.id("\\")));  // no escape in a listed key
    EXPECT_FALSE(c.allows(f.id("\"")));  // nor is "" one
    for (const char* t : {"na", "me", "\":", "\"", "a", "b", "c", "d", "e", "m"}) {
        ASSERT_TRUE(c.allows(f.id(t))) << t << " after " << c.text();
        c.accept(f.id(t));
    }
    EXPECT_FALSE(c.allows(f.id("n")));   // maxLength 6
    EXPECT_FALSE(c.allows(f.id("\\")));  // maxLength 6: an escape is one more character
    EXPECT_EQ(c.text(), R"({"name":"abcdem)");
    EXPECT_FALSE(c.complete());
    for (const char* t : {"\",", "\"age", "\":", "5", ",", "\"color", "\":", "\"", "g"}) {
        ASSERT_TRUE(c.allows(f.id(t))) << t << " after " << c.text();
        c.accept(f.id(t));
    }
    EXPECT_FALSE(c.allows(f.id("b")));   // "gb" starts no color
    EXPECT_FALSE(c.allows(f.id("\\")));  // nor may an escape begin in listed text
    EXPECT_FALSE(c.allows(f.id("\"}")));
    c.accept(f.id("r"));
    EXPECT_FALSE(c.allows(f.id("\"}")));  // "gr" is not a color yet
    for (const char* t : {"e", "e", "n"}) {
        ASSERT_TRUE(c.allows(f.id(t))) << t << " after " << c.text();
        c.accept(f.id(t));
    }
    EXPECT_TRUE(c.allows(f.id("\"}")));
    EXPECT_TRUE(c.allows(f.id("\"}\n")));
    EXPECT_FALSE(c.allows(f.id("}}")));
    EXPECT_FALSE(c.complete());
    c.accept(f.id("\"}"));
    EXPECT_TRUE(c.complete());
    EXPECT_EQ(c.text(), R"({"name":"abcdem","age":5,"color":"green"})");
    EXPECT_FALSE(c.allows(f.id(" ")));  // nothing after the document: only a stop token
    std::vector<uint8_t> mask(f.vocab.size(), 1);
    c.fill_allowed(mask);
    EXPECT_EQ(std::count(mask.begin(), mask.end(), 1), 0);
}

TEST(JsonConstraintTest, IntegerBoundsRefuseDigitsNoValueInRangeBeginsWith) {
    Fixture f(kPerson);
    JsonConstraint c = f.make();
    for (const char* t :
         {"{\"", "na", "me", "\":", "\"", "\",", "\"color", "\":", "\"", "red", "\",", "\"age", "\":", "-"}) {
        ASSERT_TRUE(c.allows(f.id(t))) << t << " after " << c.text();
        c.accept(f.id(t));
    }
    EXPECT_FALSE(c.allows(f.id("1")));  // minimum 0: no integer in range starts with -1
    ASSERT_TRUE(c.allows(f.id("0")));   // -0 is 0
    c.accept(f.id("0"));
    EXPECT_FALSE(c.allows(f.id("0")));  // nor with -00
    EXPECT_FALSE(c.complete());
    ASSERT_TRUE(c.allows(f.id("}")));
    c.accept(f.id("}"));
    EXPECT_TRUE(c.complete());
}

TEST(JsonConstraintTest, IntegerMultiplesWithinBoundsStayReachable) {
    Fixture f(R"({"type":"object","properties":{"w":{"type":"integer","minimum":1,"maximum":50,"multipleOf":7}}})");
    JsonConstraint c = f.make();
    for (const char* t : {"{\"", "w", "\":"})
        c.accept(f.id(t));
    EXPECT_FALSE(c.allows(f.id("5")));  // 5 and 50 are no multiples of 7
    EXPECT_FALSE(c.allows(f.id("9")));  // 9, and 90 and up are past 50
    EXPECT_TRUE(c.allows(f.id("1")));   // 14
    ASSERT_TRUE(c.allows(f.id("2")));   // 21, 28
    c.accept(f.id("2"));
    EXPECT_FALSE(c.allows(f.id("}")));  // 2
    EXPECT_FALSE(c.allows(f.id("2")));  // 22
    ASSERT_TRUE(c.allows(f.id("1")));
    c.accept(f.id("1"));
    ASSERT_TRUE(c.allows(f.id("}")));
    c.accept(f.id("}"));
    EXPECT_TRUE(c.complete());
}

TEST(JsonConstraintTest, LayoutWhitespaceIsBounded) {
    Fixture f(R"({"type":"object"})");
    JsonConstraint c = f.make();
    c.accept(f.id("{"));
    for (size_t i = 0; i < JsonConstraint::kMaxLayoutWhitespace / 2; ++i) {
        ASSERT_TRUE(c.allows(f.id("  ")));
        c.accept(f.id("  "));
    }
    EXPECT_FALSE(c.allows(f.id(" ")));
    EXPECT_FALSE(c.allows(f.id("\n")));
    EXPECT_TRUE(c.allows(f.id("}")));
    EXPECT_TRUE(c.allows(f.id("\"")));
    c.accept(f.id("\""));
    EXPECT_TRUE(c.allows(f.id(" ")));   // inside a string spaces are text
    EXPECT_TRUE(c.allows(f.id("\\")));  // and escapes free
    c.accept(f.id(" "));
    EXPECT_TRUE(c.allows(f.id("\":")));
    c.accept(f.id("\":"));
    EXPECT_TRUE(c.allows(f.id(" ")));  // the run started again
    EXPECT_TRUE(c.allows(f.id("true")));
    c.accept(f.id("true"));
    EXPECT_TRUE(c.allows(f.id("}")));
    c.accept(f.id("}"));
    EXPECT_TRUE(c.complete());
    EXPECT_EQ(c.text(), "{" + std::string(JsonConstraint::kMaxLayoutWhitespace, ' ') + "\" \":true}");
}

TEST(JsonConstraintTest, SplitUtf8AndTopLevelNumbers) {
    Fixture f(R"({"type":["string","integer"]})");
    JsonConstraint c = f.make();
    EXPECT_FALSE(c.allows(f.id("\xC3")));  // a continuation byte cannot start a document
    c.accept(f.id("\""));
    EXPECT_TRUE(c.allows(f.id("\xC3")));
    c.accept(f.id("\xC3"));
    EXPECT_FALSE(c.allows(f.id("\"")));  // the character is not finished
    EXPECT_TRUE(c.allows(f.id("\xA9")));
    c.accept(f.id("\xA9"));
    c.accept(f.id("\""));
    EXPECT_TRUE(c.complete());
    JsonConstraint n = f.make();
    n.accept(f.id("1"));
    EXPECT_TRUE(n.complete());  // a number ends at the end of input
    EXPECT_TRUE(n.allows(f.id("2")));
    EXPECT_FALSE(n.allows(f.id(".")));  // integers are written plainly
    EXPECT_FALSE(n.allows(f.id("e1")));
    Fixture g(R"({"type":"number"})");
    n = g.make();
    n.accept(g.id("1"));
    EXPECT_TRUE(n.allows(g.id(".")));
    n.accept(g.id("e1"));
    EXPECT_TRUE(n.allows(g.id("1")));
    n.accept(g.id("1"));
    EXPECT_FALSE(n.allows(g.id("1")));  // a third exponent digit could overflow
    EXPECT_TRUE(n.complete());
    EXPECT_FALSE(n.allows(f.id("x")));
}

// The pruned full mask equals allows() token by token, at every step of random walks over allowed tokens.
TEST(JsonConstraintTest, TheFullMaskIsEveryTokensOwnVerdict) {
    for (const char* schema :
         {kPerson, R"({"type":"object"})", R"({"anyOf":[{"type":"array","items":{"enum":["red","blue",5]}},
                                                       {"type":"object","properties":{"a":{"type":"boolean"}}}]})"}) {
        Fixture f(schema);
        for (uint64_t seed = 1; seed <= 20; ++seed) {
            std::mt19937_64 rng(seed);
            JsonConstraint c = f.make();
            std::vector<uint8_t> mask(f.vocab.size() + 3);  // wider than the tokens: the rest stays refused
            for (int step = 0; step < 60; ++step) {
                c.fill_allowed(mask);
                std::vector<int32_t> ok;
                for (size_t t = 0; t < mask.size(); ++t) {
                    ASSERT_EQ(mask[t] == 1, c.allows(static_cast<int32_t>(t)))
                        << "token " << t << " after " << c.text() << " (" << schema << ")";
                    if (mask[t] == 1) ok.push_back(static_cast<int32_t>(t));
                }
                if (ok.empty()) break;
                c.accept(ok[rng() % ok.size()]);
            }
        }
    }
}

}  // namespace
}  // namespace slipstream::agent::infer
