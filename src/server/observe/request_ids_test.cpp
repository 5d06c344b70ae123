// Tests of request id generation (the in-place hex counter), validation and traceparent parsing.
#include "server/observe/request_ids.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace slipstream::server {
namespace {

std::string hex16(std::uint64_t v) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4)
        s[static_cast<std::size_t>(i)] = kHex[v & 0xF];
    return s;
}

TEST(RequestIdGeneratorTest, CountsInHexAfterTheFixedPrefix) {
    RequestIdGenerator gen(0x0123456789abcdefULL);
    char buf[32];
    for (std::uint64_t n = 1; n <= 5000; ++n) {
        std::string_view id = gen.next(buf);
        ASSERT_EQ(std::string(id), "0123456789abcdef" + hex16(n)) << n;
    }
}

TEST(RequestIdGeneratorTest, CarriesAcrossDigits) {
    struct Case {
        std::uint64_t skip;  // ids drawn before the one checked
        const char* counter;
    };
    const Case cases[] = {
        {8, "0000000000000009"},   {9, "000000000000000a"},    {15, "0000000000000010"},
        {255, "0000000000000100"}, {4095, "0000000000001000"}, {65535, "0000000000010000"},
    };
    for (const Case& c : cases) {
        RequestIdGenerator gen(0);
        char buf[32];
        for (std::uint64_t i = 0; i < c.skip; ++i)
            gen.next(buf);
        EXPECT_EQ(std::string(gen.next(buf)), "0000000000000000" + std::string(c.counter)) << c.skip;
    }
}

TEST(RequestIdGeneratorTest, IdsAreValidRequestIds) {
    RequestIdGenerator gen;
    char buf[32];
    std::string_view first = gen.next(buf);
    EXPECT_EQ(first.size(), 32u);
    EXPECT_TRUE(valid_request_id(first));
    std::string a(first);
    EXPECT_NE(std::string(gen.next(buf)), a);
}

TEST(RequestIdsTest, ValidClientIds) {
    struct Case {
        std::string id;
        bool valid;
    };
    const Case cases[] = {
        {"", false},    {"abc-123_x.y:z", true}, {std::string(128, 'a'), true}, {std::string(129, 'a'), false},
        {"a b", false}, {"a\"b", false},
    };
    for (const Case& c : cases)
        EXPECT_EQ(valid_request_id(c.id), c.valid) << c.id;
}

TEST(RequestIdsTest, Traceparent) {
    const std::string trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    EXPECT_EQ(parse_traceparent("00-" + trace + "-00f067aa0ba902b7-01"), trace);
    EXPECT_EQ(parse_traceparent("00-" + std::string(32, '0') + "-00f067aa0ba902b7-01"), "");
    EXPECT_EQ(parse_traceparent("ff-" + trace + "-00f067aa0ba902b7-01"), "");
    EXPECT_EQ(parse_traceparent("00-" + trace + "-00f067aa0ba902b7-01-extra"), "");
    EXPECT_EQ(parse_traceparent(""), "");
}

}  // namespace
}  // namespace slipstream::server
