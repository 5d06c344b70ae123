// Tests for StopMatcher: stop strings across pieces, overlapping prefixes, several stops, split UTF-8, limits.
#include "agent/infer/stop_matcher.h"

#include <gtest/gtest.h>

namespace slipstream::agent::infer {
namespace {

struct Step {
    std::string piece;
    std::string emit;
    bool stopped;
};

struct Case {
    const char* name;
    std::vector<std::string> stops;
    std::vector<Step> steps;
    std::string finish;  // what finish() returns after the steps
    int matched;
};

StopMatcher make(std::vector<std::string> stops) {
    auto m = StopMatcher::create(std::move(stops));
    EXPECT_TRUE(m.is_ok()) << m.status().to_string();
    return std::move(m).value();
}

TEST(StopMatcherTest, Table) {
    const Case cases[] = {
        {"no stop strings", {}, {{"hello", "hello", false}, {" world", " world", false}}, "", -1},
        {"no stop found", {"END"}, {{"hello", "hello", false}, {" world", " world", false}}, "", -1},
        {"stop inside one piece", {"END"}, {{"abcENDdef", "abc", true}, {"more", "", true}}, "", 0},
        {"stop at the start", {"END"}, {{"END", "", true}}, "", 0},
        {"stop split across pieces",
         {"</s>"},
         {{"text<", "text", false}, {"/", "", false}, {"s", "", false}, {">tail", "", true}},
         "",
         0},
        {"held prefix turns out not to be a stop", {"</s>"}, {{"a</", "a", false}, {"b>", "</b>", false}}, "", -1},
        {"overlapping prefix aab in aaab",
         {"aab"},
         {{"a", "", false}, {"a", "", false}, {"a", "a", false}, {"b", "", true}},
         "",
         0},
        {"overlapping prefix in one piece", {"aab"}, {{"aaab", "a", true}}, "", 0},
        {"held prefix flushed at finish", {"STOP"}, {{"xST", "x", false}, {"O", "", false}}, "STO", -1},
        {"several stops: the earliest in the text wins", {"world", "lo"}, {{"hello world", "hel", true}}, "", 1},
        {"several stops: longest held prefix",
         {"ab", "xyz"},
         {{"1xy", "1", false}, {"a", "xy", false}, {"b", "", true}},
         "",
         0},
        {"several stops across pieces",
         {"\n\n", "###"},
         {{"line\n", "line", false}, {"#", "\n", false}, {"##", "", true}},
         "",
         1},
        {"utf-8 character split across pieces",  // é = C3 A9, € = E2 82 AC
         {},
         {{"caf\xC3", "caf", false},
          {"\xA9 ", "\xC3\xA9 ", false},
          {"\xE2", "", false},
          {"\x82", "", false},
          {"\xAC!", "\xE2\x82\xAC!", false}},
         "",
         -1},
        {"split 4-byte character then a stop",  // U+1F600 = F0 9F 98 80
         {"!"},
         {{"\xF0\x9F", "", false}, {"\x98\x80!", "\xF0\x9F\x98\x80", true}},
         "",
         0},
        {"unfinished character at finish is U+FFFD", {}, {{"ok\xE2\x82", "ok", false}}, "\xEF\xBF\xBD", -1},
        {"unfinished character before a stop is U+FFFD",
         {"x"},
         {{"a\xC3", "a", false}, {"x", "\xEF\xBF\xBD", true}},
         "",
         0},
        {"invalid bytes are not held", {}, {{"a\xFF", "a\xFF", false}, {"\x80", "\x80", false}}, "", -1},
        {"multi-byte stop string", {"\xE2\x80\x94"}, {{"a\xE2\x80", "a", false}, {"\x94z", "", true}}, "", 0},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        StopMatcher m = make(c.stops);
        for (const Step& s : c.steps) {
            const StopMatcher::Output out = m.feed(s.piece);
            EXPECT_EQ(out.emit, s.emit) << "piece " << s.piece;
            EXPECT_EQ(out.stopped, s.stopped) << "piece " << s.piece;
        }
        EXPECT_EQ(m.finish(), c.finish);
        EXPECT_EQ(m.matched_stop(), c.matched);
        EXPECT_EQ(m.stopped(), c.matched >= 0);
    }
}

TEST(StopMatcherTest, FinishEmptiesTheMatcher) {
    StopMatcher m = make({"abc"});
    EXPECT_EQ(m.feed("xab").emit, "x");
    EXPECT_EQ(m.finish(), "ab");
    EXPECT_EQ(m.finish(), "");
}

TEST(StopMatcherTest, CreateRejectsTooManyEmptyOrLongStops) {
    EXPECT_TRUE(StopMatcher::create({"a", "b", "c", "d"}).is_ok());
    EXPECT_TRUE(StopMatcher::create({"a", "b", "c", "d", "e"}).status().is_invalid_argument());
    EXPECT_TRUE(StopMatcher::create({""}).status().is_invalid_argument());
    EXPECT_TRUE(StopMatcher::create({std::string(256, 'x')}).is_ok());
    EXPECT_TRUE(StopMatcher::create({std::string(257, 'x')}).status().is_invalid_argument());
}

TEST(StopMatcherTest, LongStopStringFedByteByByte) {
    const std::string stop(256, 'z');
    StopMatcher m = make({stop});
    std::string emitted;
    for (char ch : std::string("pre") + std::string(255, 'z') + "y" + stop + "post") {
        const StopMatcher::Output out = m.feed(std::string_view(&ch, 1));
        emitted += out.emit;
        if (out.stopped) break;
    }
    EXPECT_TRUE(m.stopped());
    EXPECT_EQ(emitted, "pre" + std::string(255, 'z') + "y");
}

}  // namespace
}  // namespace slipstream::agent::infer
