// ECMA-262 -> RE2 translation: what matches, what is rejected, and why.
#include "json/schema/regex.h"

#include <gtest/gtest.h>

namespace slipstream::json::schema::detail {
namespace {

struct MatchCase {
    const char* pattern;
    const char* text;
    bool matches;
};

const MatchCase kMatches[] = {
    {"^a", "abc", true},
    {"b", "abc", true},              // unanchored search
    {"^abc$", "abc\n", false},       // $ is end of input only
    {"\\d", "\xE0\xA7\xAA", false},  // \d is ASCII: Bengali four is not a digit
    {"\\w", "\xC3\xA9", false},      // \w is ASCII
    {"\\s", "\xC2\xA0", true},       // \s includes NO-BREAK SPACE in ECMA
    {"\\s", "\xEF\xBB\xBF", true},   // and U+FEFF
    {"^\\S$", "\xC2\xA0", false},
    {"^.$", "\xE2\x80\xA8", false},     // . excludes LINE SEPARATOR
    {"^.$", "\xF0\x9F\x90\xB2", true},  // one code point, not two UTF-16 units
    {"\\u00e9", "\xC3\xA9", true},
    {"\\u{1F432}", "\xF0\x9F\x90\xB2", true},
    {"\\ud83d\\udc32", "\xF0\x9F\x90\xB2", true},  // a surrogate pair is one code point
    {"\\x41", "A", true},
    {"\\cJ", "\n", true},
    {"\\p{Letter}", "\xC3\xA9", true},
    {"\\p{L}", "1", false},
    {"\\p{Script=Greek}", "\xCE\xB1", true},
    {"\\P{Lu}", "a", true},
    {"[\\s]", "\xE3\x80\x80", true},
    {"[^]", "x", true},
    {"[]", "x", false},
    {"[\\b]", "\b", true},
    {"(?<year>\\d{4})", "2020", true},
    {"a{2,3}", "aa", true},
    {"\\/", "/", true},
    {"[a-z-]", "-", true},
};

TEST(RegexTest, MatchesLikeEcma262) {
    for (const MatchCase& c : kMatches) {
        std::string error;
        auto re = Regex::compile(c.pattern, &error);
        ASSERT_NE(re, nullptr) << c.pattern << ": " << error;
        EXPECT_EQ(re->search(c.text), c.matches) << c.pattern << " on " << c.text;
    }
}

struct RejectCase {
    const char* pattern;
    RegexSyntax kind;
};

const RejectCase kRejects[] = {
    {"(?=x)", RegexSyntax::kUnsupported},  {"(?!x)", RegexSyntax::kUnsupported},
    {"(?<=x)", RegexSyntax::kUnsupported}, {"(?<!x)", RegexSyntax::kUnsupported},
    {"(a)\\1", RegexSyntax::kUnsupported}, {"(?<n>a)\\k<n>", RegexSyntax::kUnsupported},
    {"\\a", RegexSyntax::kInvalid},        {"a{", RegexSyntax::kInvalid},
    {"a}", RegexSyntax::kInvalid},         {"[a", RegexSyntax::kInvalid},
    {"\\", RegexSyntax::kInvalid},         {"\\c1", RegexSyntax::kInvalid},
    {"\\u12", RegexSyntax::kInvalid},      {"\\01", RegexSyntax::kInvalid},
    {"(?x)", RegexSyntax::kInvalid},
};

TEST(RegexTest, RejectsWithAReason) {
    for (const RejectCase& c : kRejects) {
        std::string out, error;
        EXPECT_EQ(translate_ecma_regex(c.pattern, &out, &error), c.kind) << c.pattern;
        EXPECT_FALSE(error.empty()) << c.pattern;
        EXPECT_EQ(Regex::compile(c.pattern, &error), nullptr) << c.pattern;
    }
}

TEST(RegexTest, FormatRegexAcceptsValidButUnsupportedSyntax) {
    EXPECT_TRUE(is_valid_ecma_regex("(?=a)b"));
    EXPECT_TRUE(is_valid_ecma_regex("(a)\\1"));
    EXPECT_TRUE(is_valid_ecma_regex("a{1001}"));
    EXPECT_FALSE(is_valid_ecma_regex("\\a"));
    EXPECT_FALSE(is_valid_ecma_regex("[z-a]"));
    EXPECT_FALSE(is_valid_ecma_regex("(a"));
}

TEST(RegexTest, TranslationIsVisible) {
    std::string out, error;
    ASSERT_EQ(translate_ecma_regex("^\\p{Letter}.$", &out, &error), RegexSyntax::kOk);
    EXPECT_EQ(out, "^\\p{L}[^\\n\\r\\x{2028}\\x{2029}]$");
}

}  // namespace
}  // namespace slipstream::json::schema::detail
