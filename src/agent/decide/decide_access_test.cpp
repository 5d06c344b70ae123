// DecideAccess: the access file's lines, levels per tenant, defaults and every refusal naming its line.
#include "agent/decide/decide_access.h"

#include <gtest/gtest.h>

#include "agent/decide/decide_rate_limits.h"

namespace slipstream::agent::decide {
namespace {

TEST(DecideAccess, LevelsPerPrincipalAndTenant) {
    auto access = DecideAccess::parse(
        "# who may learn\r\n"
        "carol write\n"
        "  rita\tread   # decides, never learns\n"
        "\n"
        "tina write acme,globex.eu\n"
        "nobody none\n",
        AccessLevel::kRead);
    ASSERT_TRUE(access.is_ok()) << access.status().message();
    const DecideAccess& a = access.value();
    EXPECT_EQ(a.level("carol", "anything"), AccessLevel::kWrite);
    EXPECT_EQ(a.level("rita", "acme"), AccessLevel::kRead);
    EXPECT_EQ(a.level("tina", "acme"), AccessLevel::kWrite);
    EXPECT_EQ(a.level("tina", "globex.eu"), AccessLevel::kWrite);
    EXPECT_EQ(a.level("tina", "initech"), AccessLevel::kNone);
    EXPECT_EQ(a.level("nobody", "acme"), AccessLevel::kNone);
    EXPECT_EQ(a.level("dave", "acme"), AccessLevel::kRead);  // not listed: the default
    EXPECT_EQ(DecideAccess().level("anyone", "t"), AccessLevel::kWrite);
}

TEST(DecideAccess, RefusalsNameTheLine) {
    const std::pair<const char*, const char*> cases[] = {
        {"carol\n", "line 1: expected an access level after the principal"},
        {"carol write\nrita admin\n", "line 2: unknown access level \"admin\" (read, write or none)"},
        {"carol write a b\n", "line 1: expected <principal> <read|write|none> [tenants]"},
        {"carol write acme,,b\n", "line 1: \"\" is not a tenant name ([A-Za-z0-9._-]{1,64})"},
        {"carol write acme/x\n", "line 1: \"acme/x\" is not a tenant name ([A-Za-z0-9._-]{1,64})"},
        {"carol write\n# c\ncarol read\n", "line 3: principal \"carol\" listed twice"},
    };
    for (const auto& [text, error] : cases) {
        auto parsed = DecideAccess::parse(text, AccessLevel::kWrite);
        ASSERT_FALSE(parsed.is_ok()) << text;
        EXPECT_EQ(parsed.status().message(), error);
    }
    auto bounded = DecideAccess::parse("a read\nb read\nc read\n", AccessLevel::kWrite, 2);
    ASSERT_FALSE(bounded.is_ok());
    EXPECT_EQ(bounded.status().message(), "line 3: more than 2 principals");
    EXPECT_FALSE(DecideAccess::load("/nonexistent/access.txt", AccessLevel::kWrite).is_ok());
}

TEST(DecideRateLimits, PerKeyBudgetsAndBadRates) {
    auto none = DecideRateLimits::make({});
    ASSERT_TRUE(none.is_ok());
    EXPECT_EQ(none.value(), nullptr);
    auto limits =
        DecideRateLimits::make({.decide = "2/h", .reward = "", .burst = 0, .max_keys = 100, .store = nullptr});
    ASSERT_TRUE(limits.is_ok());
    DecideRateLimits& l = *limits.value();
    EXPECT_TRUE(l.decide("carol").allowed);
    EXPECT_TRUE(l.decide("carol").allowed);
    auto third = l.decide("carol");
    EXPECT_FALSE(third.allowed);
    EXPECT_GT(third.retry_after_ns, 0);
    EXPECT_TRUE(l.decide("rita").allowed);  // another key, its own budget
    for (int i = 0; i < 10; ++i)
        EXPECT_TRUE(l.reward("carol").allowed);  // no reward limit
    auto bad = DecideRateLimits::make({.decide = "", .reward = "fast", .burst = 0, .max_keys = 100, .store = nullptr});
    ASSERT_FALSE(bad.is_ok());
    EXPECT_EQ(bad.status().message().rfind("decide-reward-rate-limit: ", 0), 0u) << bad.status().message();
}

}  // namespace
}  // namespace slipstream::agent::decide
