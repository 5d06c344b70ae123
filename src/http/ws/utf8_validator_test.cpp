// Utf8Validator tests: valid and invalid sequences, whole and split at every byte.
#include "http/ws/utf8_validator.h"

#include <gtest/gtest.h>

#include "http/ws/test_frames.h"

namespace slipstream::http::ws {
namespace {

using testing::hex;

struct Utf8Case {
    const char* name;
    std::string bytes;
    bool valid;
};

std::vector<Utf8Case> utf8_cases() {
    return {
        {"empty", "", true},
        {"ascii", "hello, world, long enough for the fast path", true},
        {"2-byte", hex("c3 a9"), true},
        {"3-byte", hex("e2 82 ac"), true},
        {"4-byte", hex("f0 9f 98 80"), true},
        {"max code point", hex("f4 8f bf bf"), true},
        {"mixed scripts", hex("cebae1bdb9cf83cebcceb5") + "Hello-" + hex("c2b5") + "@", true},
        {"lone continuation", hex("80"), false},
        {"overlong 2-byte", hex("c0 af"), false},
        {"overlong 3-byte", hex("e0 80 af"), false},
        {"overlong 4-byte", hex("f0 80 80 af"), false},
        {"surrogate", hex("ed a0 80"), false},
        {"past U+10FFFF", hex("f4 90 80 80"), false},
        {"f5 lead", hex("f5 80 80 80"), false},
        {"ff", hex("ff"), false},
        {"truncated 3-byte", hex("e2 82"), false},
        {"truncated 4-byte", hex("f0 9f 98"), false},
        {"ascii then bad after 8", "abcdefgh" + hex("c3 28"), false},
    };
}

TEST(Utf8Validator, WholeInput) {
    for (const Utf8Case& c : utf8_cases()) {
        EXPECT_EQ(Utf8Validator::is_valid(c.bytes), c.valid) << c.name;
    }
}

TEST(Utf8Validator, SplitAtEveryByte) {
    for (const Utf8Case& c : utf8_cases()) {
        for (std::size_t cut = 0; cut <= c.bytes.size(); ++cut) {
            Utf8Validator v;
            bool ok = v.feed(std::string_view(c.bytes).substr(0, cut));
            ok = v.feed(std::string_view(c.bytes).substr(cut)) && ok;
            EXPECT_EQ(ok && v.complete(), c.valid) << c.name << " cut at " << cut;
        }
    }
}

TEST(Utf8Validator, FailsAtFirstBadByte) {
    Utf8Validator v;
    EXPECT_TRUE(v.feed(hex("f4 8f")));  // could still become valid
    EXPECT_FALSE(v.complete());
    Utf8Validator w;
    EXPECT_FALSE(w.feed(hex("f4 90")));  // can no longer be valid
}

}  // namespace
}  // namespace slipstream::http::ws
