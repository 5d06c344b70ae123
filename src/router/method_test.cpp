// Tests for method parsing, naming, MethodSet and the Allow header value.
#include "router/method.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::server {
namespace {

TEST(Method, ParsesEveryNamedMethodAndNothingElse) {
    struct Row {
        std::string_view token;
        Method expected;
    };
    const Row rows[] = {
        {"GET", Method::kGet},         {"HEAD", Method::kHead},     {"POST", Method::kPost},
        {"PUT", Method::kPut},         {"DELETE", Method::kDelete}, {"PATCH", Method::kPatch},
        {"OPTIONS", Method::kOptions}, {"TRACE", Method::kTrace},   {"CONNECT", Method::kConnect},
        {"get", Method::kOther},       {"Get", Method::kOther},     {"", Method::kOther},
        {"GETX", Method::kOther},      {"GE", Method::kOther},      {"PROPFIND", Method::kOther},
        {"POS", Method::kOther},       {"DELETE ", Method::kOther}, {std::string_view("GET\0", 4), Method::kOther},
    };
    for (const Row& row : rows) {
        EXPECT_EQ(parse_method(row.token), row.expected) << row.token;
    }
}

TEST(Method, NamesRoundTrip) {
    for (std::size_t i = 0; i < kMethodCount; ++i) {
        auto m = static_cast<Method>(i);
        EXPECT_EQ(parse_method(method_name(m)), m);
    }
    EXPECT_EQ(method_name(Method::kOther), "OTHER");
    EXPECT_EQ(method_name(Method::kDelete), "DELETE");
}

TEST(MethodSet, AddsContainsAndIgnoresOther) {
    MethodSet set;
    EXPECT_TRUE(set.empty());
    set.add(Method::kPost);
    set.add(Method::kOther);
    EXPECT_TRUE(set.contains(Method::kPost));
    EXPECT_FALSE(set.contains(Method::kGet));
    EXPECT_FALSE(set.contains(Method::kOther));
    EXPECT_EQ(set.bits(), 1u << 2);
    MethodSet other;
    other.add(Method::kGet);
    EXPECT_EQ((set | other).bits(), (1u << 2) | 1u);
    EXPECT_EQ(MethodSet::from_bits(0xffff).bits(), 0x1ff);
}

TEST(MethodSet, FormatsAllowInFixedOrder) {
    std::array<char, kAllowBufferSize> buf{};
    EXPECT_EQ(format_allow(MethodSet(), buf), "");
    MethodSet set;
    set.add(Method::kOptions);
    set.add(Method::kGet);
    set.add(Method::kDelete);
    set.add(Method::kHead);
    EXPECT_EQ(format_allow(set, buf), "GET, HEAD, DELETE, OPTIONS");
    EXPECT_EQ(format_allow(MethodSet::from_bits(0x1ff), buf),
              "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT");
    EXPECT_EQ(format_allow(MethodSet::from_bits(1u << 8), buf), "CONNECT");
}

}  // namespace
}  // namespace slipstream::server
