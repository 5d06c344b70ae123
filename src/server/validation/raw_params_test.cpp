// Query and cookie splitting against Starlette's results (parse_qsl with keep_blank_values; cookie_parser).
#include "server/validation/raw_params.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slipstream::server::detail {
namespace {

std::string render(std::span<const RawPair> pairs) {
    std::string out;
    for (const RawPair& p : pairs) {
        out += std::string(p.key) + "=" + std::string(p.value) + "|";
    }
    return out;
}

TEST(SplitQuery, MatchesParseQsl) {
    struct Case {
        std::string in, out;
    } cases[] = {
        {"", ""},
        {"a=1&b=2", "a=1|b=2|"},
        {"a=1&&b", "a=1|b=|"},
        {"a+b=c+d", "a b=c d|"},
        {"x=%41%42", "x=AB|"},
        {"x=%zz&y=%4", "x=%zz|y=%4|"},
        {"x=%C3%A9", "x=\xC3\xA9|"},
        {"x=%FF", "x=\xEF\xBF\xBD|"},
        {"x=a=b", "x=a=b|"},
        {"=v", "=v|"},
        {"x=\xC3\xA9", "x=\xC3\x83\xC2\xA9|"},  // raw bytes are latin-1 characters, as Starlette decodes
        {"x=%4\xC3%41", "x=%4\xC3\x83\x41|"},   // an escape cut by a raw byte stays literal
        {"x=%\xC3%2", "x=%\xC3\x83%2|"},
        {"x=%e9+%41%", "x=\xEF\xBF\xBD A%|"},
    };
    for (const Case& c : cases) {
        base::Arena arena;
        EXPECT_EQ(render(split_query(c.in, arena)), c.out) << c.in;
    }
}

TEST(SplitCookies, MatchesStarlette) {
    struct Case {
        std::string in, out;
    } cases[] = {
        {"a=1; b=2", "a=1|b=2|"},      {" a = 1 ;;b", "a=1|=b|"}, {"a=\"x\\\"y\"", "a=x\"y|"},
        {"a=\"\\101\\102\"", "a=AB|"}, {"a=b=c", "a=b=c|"},
    };
    for (const Case& c : cases) {
        base::Arena arena;
        std::vector<RawPair> out;
        split_cookies(c.in, arena, out);
        EXPECT_EQ(render(out), c.out) << c.in;
    }
}

TEST(ToValidUtf8, ReplacesLikePython) {
    base::Arena arena;
    EXPECT_EQ(to_valid_utf8("abc", arena), "abc");
    EXPECT_EQ(to_valid_utf8("a\xFF"
                            "b",
                            arena),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(to_valid_utf8("\xE2\x82", arena), "\xEF\xBF\xBD");  // truncated sequence: one replacement
    EXPECT_EQ(header_text("\xE9", arena), "\xC3\xA9");
}

}  // namespace
}  // namespace slipstream::server::detail
