// PatternNfa: matches equal the whole-document validator's regex (RE2 via json/schema) on a table, prefixes die at
// the first character no continuation can match, and syntax outside the subset is refused.
#include "agent/structured/pattern_nfa.h"

#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "json/schema/regex.h"
#include "json/utf8.h"

namespace slipstream::agent::structured {
namespace {

std::vector<std::uint32_t> code_points(std::string_view s) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0, n = 0; i < s.size(); i += n)
        out.push_back(json::detail::decode_utf8(s, i, &n));
    return out;
}

// -1: the set died after that many characters; else whether the whole text matches.
int run(const PatternNfa& nfa, std::string_view text, std::size_t* died_at = nullptr) {
    PatternNfa::States s = nfa.start();
    const auto cps = code_points(text);
    for (std::size_t i = 0; i < cps.size(); ++i) {
        s = nfa.step(s, cps[i]);
        if (PatternNfa::none(s)) {
            if (died_at != nullptr) *died_at = i + 1;
            return -1;
        }
    }
    return nfa.accepts(s, cps.empty()) ? 1 : 0;
}

TEST(PatternNfa, MatchesEqualTheValidatorsRegex) {
    const std::vector<std::string> patterns = {
        "^[A-Z]{3}-\\d{4}$",
        "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$",
        "abc",
        "^abc",
        "abc$",
        "^$",
        "",
        "a*",
        "^(?:ab|cd)+$",
        "^(a|b)?c{2,3}$",
        "x{2,}",
        "^.{1,3}$",
        "^[^a-c]*$",
        "^\\w+\\s\\W$",
        "^[\\d.-]+$",
        "^[-a]$",
        "^[a-]$",
        "\\.",
        "^\\u00e9+$",
        "^[é-ü]$",
        "^(?<year>\\d{4})-(?<m>0[1-9]|1[0-2])$",
        "^\\S+$",
        "^[\\S]+$",
        "a|^b|c$",
        "^[]$",
        "^[^]$",
        "^\\p",  // refused below; skipped here
        "$^",
        "^a*?b+?$",
        "^\\x41\\u{42}\\cC\\0$",
        "^[\\b]$",
        "\\/",
    };
    const std::vector<std::string> texts = {
        "",     "ABC-1234", "AB-1234", "ABC-12345", "a@b.co",  "a@b.c", "abc",  "xabc",  "abcx",
        "abab", "cd",       "ccc",     "bcc",       "acccc",   "xx",    "\n",   "a\n",   "é",
        "ééé",  "ü",        "ö",       "2024-12",   "2024-13", "a b c", "a\tb", "-",     "a",
        "ab",   "b",        "c",       "x y!",      "AB\x03",  "\x08",  "/",    "1.2-3", "x\xe2\x80\xa8",
        "aaab", "AB\x03\0"};
    int compared = 0;
    for (const std::string& p : patterns) {
        auto nfa = PatternNfa::compile(p);
        std::string error;
        auto re = json::schema::detail::Regex::compile(p, &error);
        if (nfa == nullptr || re == nullptr) {
            EXPECT_EQ(nfa, nullptr) << p << " compiles here but not in the validator: " << error;
            continue;
        }
        for (const std::string& t : texts) {
            const int got = run(*nfa, t);
            const bool want = re->search(t);
            EXPECT_EQ(got == 1, want) << "pattern " << p << " text '" << t << "'";
            if (want) {
                EXPECT_NE(got, -1) << p << " / " << t;  // a matching text never dies
            }
            ++compared;
        }
    }
    EXPECT_GT(compared, 1000);
}

// Random patterns of the subset over a small alphabet against the validator's regex on random texts.
std::string random_pattern(std::mt19937& rng, int depth) {
    static const char* atoms[] = {"a", "b", ".", "[ab]", "[^a]", "\\d", "\\s", "\\W", "\u00e9", "[a-c\u00e9]", "\\n"};
    static const char* quantifiers[] = {"", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,}", "*?"};
    std::string out;
    const int parts = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < parts; ++i) {
        const unsigned pick = rng() % 10;
        std::string atom;
        if (pick == 0 && depth < 3) {
            atom =
                (rng() % 2 ? "(" : "(?:") + random_pattern(rng, depth + 1) + "|" + random_pattern(rng, depth + 1) + ")";
        } else if (pick == 1) {
            out += rng() % 2 ? "^" : "$";
            continue;
        } else {
            atom = atoms[rng() % std::size(atoms)];
        }
        out += atom + quantifiers[rng() % std::size(quantifiers)];
    }
    return out;
}

TEST(PatternNfa, RandomPatternsAgreeWithTheValidator) {
    std::mt19937 rng(12345);
    const char* letters[] = {"a", "b", "c", "1", " ", "\n", "\xC3\xA9", "-"};
    int compared = 0;
    for (int i = 0; i < 3000; ++i) {
        const std::string p = random_pattern(rng, 0);
        auto nfa = PatternNfa::compile(p);
        std::string error;
        auto re = json::schema::detail::Regex::compile(p, &error);
        if (re == nullptr) {
            EXPECT_EQ(nfa, nullptr) << p;
            continue;
        }
        ASSERT_NE(nfa, nullptr) << p;
        for (int k = 0; k < 20; ++k) {
            std::string t;
            const int n = static_cast<int>(rng() % 6);
            for (int j = 0; j < n; ++j)
                t += letters[rng() % std::size(letters)];
            const int got = run(*nfa, t);
            const bool want = re->search(t);
            ASSERT_EQ(got == 1, want) << "pattern " << p << " text '" << t << "'";
            ++compared;
            // A symbol's representative steps like every character of the symbol.
            PatternNfa::States s = nfa->start();
            for (std::uint32_t c : code_points(t)) {
                ASSERT_EQ(nfa->step(s, c), nfa->step(s, nfa->representative(nfa->symbol(c)))) << p;
                s = nfa->step(s, c);
            }
        }
    }
    EXPECT_GT(compared, 50000);
}

TEST(PatternNfa, PrefixDiesAtTheFirstImpossibleCharacter) {
    struct Case {
        const char* pattern;
        const char* text;
        std::size_t died_at;  // 0: lives through the text
    };
    const Case cases[] = {
        {"^[A-Z]{3}-\\d{4}$", "ABC-12", 0},
        {"^[A-Z]{3}-\\d{4}$", "ABc", 3},
        {"^[A-Z]{3}-\\d{4}$", "ABC-12345", 9},
        {"^[A-Z]{3}-\\d{4}$", "AB-", 3},
        {"^abc", "abd", 3},
        {"^abc", "x", 1},
        {"abc", "xyzab", 0},
        {"abc$", "abcabx", 0},
        {"^a$", "ab", 2},
        {"^(?:ab|cd)+$", "abce", 4},
        {"^.{1,3}$", "abcd", 4},
        {"^[^@\\s]+@[^@\\s]+$", "a@b@", 4},
        {"^[^@\\s]+@[^@\\s]+$", "a b", 2},
        {"abc", "ab", 0},
    };
    for (const Case& c : cases) {
        auto nfa = PatternNfa::compile(c.pattern);
        ASSERT_NE(nfa, nullptr) << c.pattern;
        std::size_t died = 0;
        run(*nfa, c.text, &died);
        EXPECT_EQ(died, c.died_at) << c.pattern << " / " << c.text;
    }
    // Once matched (unanchored end), every continuation matches: the set says so.
    auto nfa = PatternNfa::compile("ab");
    PatternNfa::States s = nfa->start();
    s = nfa->step(nfa->step(s, 'a'), 'b');
    EXPECT_TRUE(nfa->settled(s));
    // The shortest and longest matches still possible.
    auto two = PatternNfa::compile("^(?:ab|cdefgh)$");
    EXPECT_EQ(two->min_to_match(two->start()), 2u);
    EXPECT_EQ(two->max_to_match(two->start()), 6u);
    EXPECT_EQ(two->max_to_match(two->step(two->start(), 'c')), 5u);
    EXPECT_EQ(two->max_to_match(two->step(two->step(two->start(), 'a'), 'b')), 0u);
    auto loop = PatternNfa::compile("^a+b?$");
    EXPECT_EQ(loop->max_to_match(loop->start()), SIZE_MAX);
    EXPECT_EQ(loop->min_to_match(loop->start()), 1u);
    // takes_any: after "^ab$" reads "ab" no character is possible; after "^a" any letter range with 'b'.
    auto anchored = PatternNfa::compile("^ab$");
    PatternNfa::States t = anchored->step(anchored->start(), 'a');
    EXPECT_TRUE(anchored->takes_any(t, 'a', 'c'));
    EXPECT_FALSE(anchored->takes_any(t, 0x80, 0x7ff));
    t = anchored->step(t, 'b');
    EXPECT_FALSE(anchored->takes_any(t, 0, 0x10ffff));
    EXPECT_TRUE(anchored->accepts(t, false));
}

TEST(PatternNfa, RefusesWhatIsOutsideTheSubset) {
    for (const char* p :
         {"(a)\\1", "(?=a)", "(?!a)",   "(?<=a)b", "(?<!a)b", "\\bword\\b", "\\Bx",    "\\p{L}",  "\\P{Lu}",
          "\\k<n>", "a**",   "*a",      "a{2,1}",  "a{1001}", "(a",         "a)",      "[a",      "x]",
          "\\",     "\\q",   "[a-\\d]", "[z-a]",   "(?i)a",   "^*",         "\\ud800", "[\\d-z]", "a{1,2}{3}"}) {
        std::string why;
        EXPECT_EQ(PatternNfa::compile(p, &why), nullptr) << p;
        EXPECT_FALSE(why.empty()) << p;
    }
    std::string why;
    EXPECT_EQ(PatternNfa::compile("^[a-z]{300}$", &why), nullptr);  // past kMaxStates
    EXPECT_NE(why.find("states"), std::string::npos);
    EXPECT_EQ(PatternNfa::compile("(a{100}){100}", &why), nullptr);
    EXPECT_NE(PatternNfa::compile("^[a-z]{200}$"), nullptr);
}

}  // namespace
}  // namespace slipstream::agent::structured
