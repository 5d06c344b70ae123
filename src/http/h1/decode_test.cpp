// decode_path and parse_query: decoding, the %2F flag, malformed escapes, NUL, views vs scratch.
#include "http/h1/decode.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace slipstream::http::h1 {
namespace {

struct PathCase {
    std::string raw;
    DecodeStatus status;
    std::string path;
    bool encoded_slash;
};

TEST(DecodePathTest, Table) {
    const std::vector<PathCase> cases = {
        {"/plain/path", DecodeStatus::kOk, "/plain/path", false},
        {"/a%20b", DecodeStatus::kOk, "/a b", false},
        {"/%41%62%63", DecodeStatus::kOk, "/Abc", false},
        {"/%e2%82%AC", DecodeStatus::kOk, "/\xe2\x82\xac", false},
        {"/a+b", DecodeStatus::kOk, "/a+b", false},
        {"/a%2Fb", DecodeStatus::kOk, "/a/b", true},
        {"/a%2fb%20", DecodeStatus::kOk, "/a/b ", true},
        {"/%25", DecodeStatus::kOk, "/%", false},
        {"/%", DecodeStatus::kBadPercent, "", false},
        {"/%2", DecodeStatus::kBadPercent, "", false},
        {"/%zz", DecodeStatus::kBadPercent, "", false},
        {"/%2g", DecodeStatus::kBadPercent, "", false},
        {"/a%00b", DecodeStatus::kNul, "", false},
    };
    for (const PathCase& c : cases) {
        SCOPED_TRACE(c.raw);
        std::array<char, 64> buf;
        const PathDecodeResult r = decode_path(c.raw, buf);
        EXPECT_EQ(r.status, c.status);
        EXPECT_EQ(r.path, c.path);
        EXPECT_EQ(r.encoded_slash, c.encoded_slash);
    }
}

TEST(DecodePathTest, NoPercentReturnsTheInputItself) {
    const std::string raw = "/users/42";
    const PathDecodeResult r = decode_path(raw, {});
    EXPECT_EQ(r.status, DecodeStatus::kOk);
    EXPECT_EQ(r.path.data(), raw.data());
}

TEST(DecodePathTest, BufferTooSmall) {
    std::array<char, 4> buf;
    EXPECT_EQ(decode_path("/a%20b", buf).status, DecodeStatus::kNoSpace);
}

struct QueryCase {
    std::string query;
    DecodeStatus status;
    std::vector<std::pair<std::string, std::string>> params;
};

TEST(ParseQueryTest, Table) {
    const std::vector<QueryCase> cases = {
        {"", DecodeStatus::kOk, {}},
        {"a=1&b=2", DecodeStatus::kOk, {{"a", "1"}, {"b", "2"}}},
        {"a+b=c+d%20e", DecodeStatus::kOk, {{"a b", "c d e"}}},
        {"flag", DecodeStatus::kOk, {{"flag", ""}}},
        {"a=", DecodeStatus::kOk, {{"a", ""}}},
        {"=v", DecodeStatus::kOk, {{"", "v"}}},
        {"&&a=1&&b=2&", DecodeStatus::kOk, {{"a", "1"}, {"b", "2"}}},
        {"a=1&a=2", DecodeStatus::kOk, {{"a", "1"}, {"a", "2"}}},
        {"a=b=c", DecodeStatus::kOk, {{"a", "b=c"}}},
        {"k%3D=v%26w", DecodeStatus::kOk, {{"k=", "v&w"}}},
        {"q=%E2%82%AC", DecodeStatus::kOk, {{"q", "\xe2\x82\xac"}}},
        {"a=1&b=%zz", DecodeStatus::kBadPercent, {{"a", "1"}}},
        {"a=%", DecodeStatus::kBadPercent, {}},
        {"a%00=1", DecodeStatus::kNul, {}},
    };
    for (const QueryCase& c : cases) {
        SCOPED_TRACE(c.query);
        std::array<char, 64> scratch;
        std::array<QueryParam, 8> out;
        const QueryParseResult r = parse_query(c.query, scratch, out);
        EXPECT_EQ(r.status, c.status);
        ASSERT_EQ(r.count, c.params.size());
        for (std::size_t i = 0; i < r.count; ++i) {
            EXPECT_EQ(out[i].key, c.params[i].first);
            EXPECT_EQ(out[i].value, c.params[i].second);
        }
    }
}

TEST(ParseQueryTest, PlainComponentsAreViewsIntoTheQuery) {
    const std::string q = "plain=value&dec=a+b";
    std::array<char, 32> scratch;
    std::array<QueryParam, 4> out;
    const QueryParseResult r = parse_query(q, scratch, out);
    ASSERT_EQ(r.count, 2u);
    EXPECT_EQ(out[0].key.data(), q.data());
    EXPECT_EQ(out[0].value.data(), q.data() + 6);
    EXPECT_EQ(out[1].key.data(), q.data() + 12);
    EXPECT_EQ(out[1].value.data(), scratch.data());
    EXPECT_EQ(out[1].value, "a b");
}

TEST(ParseQueryTest, TooManyAndNoSpace) {
    std::array<char, 32> scratch;
    std::array<QueryParam, 2> out;
    const QueryParseResult r = parse_query("a=1&b=2&c=3", scratch, out);
    EXPECT_EQ(r.status, DecodeStatus::kTooMany);
    EXPECT_EQ(r.count, 2u);
    std::array<char, 2> tiny;
    EXPECT_EQ(parse_query("a=%20%20", tiny, out).status, DecodeStatus::kNoSpace);
    EXPECT_EQ(parse_query("abc=def", tiny, out).status, DecodeStatus::kOk);  // nothing to decode: no scratch used
}

}  // namespace
}  // namespace slipstream::http::h1
