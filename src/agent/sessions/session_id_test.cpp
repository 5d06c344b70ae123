// Session ids: shape, alphabet, no repeats; the shape check refuses anything else.
#include "agent/sessions/session_id.h"

#include <gtest/gtest.h>

#include <set>

namespace slipstream::agent::sessions {
namespace {

TEST(SessionId, TwentyTwoBase64UrlCharactersNeverRepeated) {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        base::Result<std::string> id = new_session_id();
        ASSERT_TRUE(id.is_ok());
        EXPECT_EQ(id->size(), kSessionIdLength);
        EXPECT_TRUE(is_session_id(*id)) << *id;
        // 128 bits: the last character carries 2 bits, so it is one of A, Q, g, w.
        EXPECT_NE(std::string("AQgw").find(id->back()), std::string::npos) << *id;
        EXPECT_TRUE(seen.insert(*id).second);
    }
}

TEST(SessionId, ShapeCheck) {
    struct Case {
        std::string text;
        bool ok;
    };
    const Case kCases[] = {
        {"AAAAAAAAAAAAAAAAAAAAAA", true},  {"abcdefghijklmnopqrs-_A", true},   {"", false},
        {"AAAAAAAAAAAAAAAAAAAAA", false},  {"AAAAAAAAAAAAAAAAAAAAAAA", false}, {"AAAAAAAAAAAAAAAAAAAAA=", false},
        {"AAAAAAAAAAAAAAAAAAAAA/", false}, {"AAAAAAAAAAAAAAAAAAAAA.", false},  {"../../etc/passwd000000", false},
    };
    for (const Case& c : kCases)
        EXPECT_EQ(is_session_id(c.text), c.ok) << c.text;
}

}  // namespace
}  // namespace slipstream::agent::sessions
