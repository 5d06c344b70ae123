// JsonStream: the same verdict as json::parse on JSONTestSuite fed whole, byte by byte and in random chunks; events
// in order with strings split anywhere; errors at the first byte that proves them; limits.
#include "agent/structured/json_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/arena.h"

namespace slipstream::agent::structured {
namespace {

namespace fs = std::filesystem;

fs::path test_data_dir() {
    if (const char* d = std::getenv("SLIPSTREAM_TEST_DATA"); d != nullptr && *d != '\0') return d;
    return fs::path(SLIPSTREAM_SOURCE_ROOT) / ".." / "shared" / "data";
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every event as text: {, }, [, ], k:<key>, s:<string>, n:<number>, true, false, null.
struct Recorder final : JsonEvents {
    std::vector<std::string> seen;
    std::string key_text, string_text;
    base::Status begin_object() override { return add("{"); }
    base::Status end_object() override { return add("}"); }
    base::Status begin_array() override { return add("["); }
    base::Status end_array() override { return add("]"); }
    base::Status key(std::string_view piece, bool last) override {
        key_text += piece;
        if (last) return add("k:" + std::exchange(key_text, {}));
        return base::Status::ok();
    }
    base::Status string(std::string_view piece, bool last) override {
        string_text += piece;
        if (last) return add("s:" + std::exchange(string_text, {}));
        return base::Status::ok();
    }
    base::Status number(std::string_view text) override { return add("n:" + std::string(text)); }
    base::Status boolean(bool v) override { return add(v ? "true" : "false"); }
    base::Status null() override { return add("null"); }
    base::Status add(std::string e) {
        seen.push_back(std::move(e));
        return base::Status::ok();
    }
};

// Feeds `text` in pieces of the given sizes (cycled), then finishes.
StreamState run(JsonStream& s, std::string_view text, const std::vector<std::size_t>& sizes) {
    std::size_t at = 0, k = 0;
    while (at < text.size()) {
        const std::size_t n = std::min(sizes[k++ % sizes.size()], text.size() - at);
        if (s.feed(text.substr(at, n)) == StreamState::kInvalid) return StreamState::kInvalid;
        at += n;
    }
    return s.finish();
}

TEST(JsonStreamTest, JsonTestSuiteVerdictsMatchTheWholeDocumentParserInEverySplit) {
    const fs::path dir = test_data_dir() / "jsontestsuite" / "test_parsing";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "JSONTestSuite not found at " << dir << " (set SLIPSTREAM_TEST_DATA)";
    std::mt19937 rng(7);
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string text = read_file(entry.path());
        SCOPED_TRACE(entry.path().filename().string());
        base::Arena arena;
        const bool accepted = json::parse(text, arena).is_ok();
        std::vector<std::vector<std::size_t>> splits = {{text.size() + 1}, {1}, {2}, {3}};
        for (int r = 0; r < 5; ++r) {
            std::vector<std::size_t> sizes;
            for (int i = 0; i < 16; ++i)
                sizes.push_back(1 + rng() % 7);
            splits.push_back(sizes);
        }
        std::vector<std::string> whole_events;
        for (const auto& sizes : splits) {
            Recorder events;
            JsonStream s(&events);
            const StreamState st = run(s, text, sizes);
            EXPECT_EQ(st == StreamState::kComplete, accepted) << s.error().message << " at " << s.error().offset;
            if (st == StreamState::kComplete) {
                if (whole_events.empty()) whole_events = events.seen;
                EXPECT_EQ(events.seen, whole_events);  // the same events, however the bytes were split
            }
        }
        ++files;
    }
    EXPECT_GT(files, 300);
}

TEST(JsonStreamTest, EventsComeAsTheBytesProveThem) {
    Recorder events;
    JsonStream s(&events);
    EXPECT_EQ(s.feed("{\"na"), StreamState::kPartial);
    EXPECT_EQ(events.seen, (std::vector<std::string>{"{"}));
    EXPECT_EQ(events.key_text, "na");  // a key piece goes out with its chunk
    EXPECT_EQ(s.feed("me\": \"Caf\xc3"), StreamState::kPartial);
    EXPECT_EQ(events.string_text, "Caf");  // the split é waits for its second byte
    EXPECT_EQ(s.feed("\xa9 \\u00e9\\ud83d"), StreamState::kPartial);
    EXPECT_EQ(events.string_text, "Caf\xc3\xa9 \xc3\xa9");
    EXPECT_EQ(s.feed("\\ude00\", \"n\": -12.5e+3"), StreamState::kPartial);
    EXPECT_EQ(events.seen.back(), "k:n");  // the number is not over until a byte says so
    EXPECT_EQ(s.feed(", \"l\": [true, null, false, {}]}"), StreamState::kComplete);
    EXPECT_EQ(events.seen,
              (std::vector<std::string>{"{", "k:name", "s:Caf\xc3\xa9 \xc3\xa9\xf0\x9f\x98\x80", "k:n", "n:-12.5e+3",
                                        "k:l", "[", "true", "null", "false", "{", "}", "]", "}"}));
    EXPECT_EQ(s.feed(" \n"), StreamState::kComplete);
    EXPECT_EQ(s.feed("x"), StreamState::kInvalid);
    EXPECT_EQ(s.error().message, "Extra data");
}

TEST(JsonStreamTest, ATopLevelNumberEndsAtTheEnd) {
    Recorder events;
    JsonStream s(&events);
    EXPECT_EQ(s.feed("12"), StreamState::kPartial);
    EXPECT_EQ(s.feed("34"), StreamState::kPartial);
    EXPECT_TRUE(events.seen.empty());
    EXPECT_EQ(s.finish(), StreamState::kComplete);
    EXPECT_EQ(events.seen, (std::vector<std::string>{"n:1234"}));
}

struct BadCase {
    const char* text;
    std::size_t offset;
    const char* message;
};

TEST(JsonStreamTest, ErrorsAtTheFirstByteThatProvesThem) {
    const BadCase cases[] = {
        {"{\"a\" 1}", 5, "Expecting ':' delimiter"},
        {"[1 2]", 3, "Expecting ',' delimiter"},
        {"{1:2}", 1, "Expecting property name enclosed in double quotes"},
        {"[tru ]", 4, "Expecting value"},
        {"[\"a\\x\"]", 4, "Invalid \\escape"},
        {"[\"\\u12G4\"]", 6, "Invalid \\uXXXX escape"},
        {"[\"\\ud800x\"]", 8, "Lone surrogate in \\uXXXX escape"},
        {"[\"\\udc00\"]", 5, "Lone surrogate in \\uXXXX escape"},
        {"[\"\\ud800\\u0041\"]", 10, "Lone surrogate in \\uXXXX escape"},  // no low half begins with 0
        {"[\"a\x01\"]", 3, "Invalid control character at"},
        {"[\"\xc0\xaf\"]", 2, "Invalid UTF-8"},
        {"[\"\xed\xa0\x80\"]", 3, "Invalid UTF-8"},  // an encoded surrogate
        {"[-]", 2, "Expecting value"},
        {"[1.]", 3, "Expecting value"},
        {"[1e400]", 6, "Number out of range"},
        {"{} {}", 3, "Extra data"},
    };
    for (const BadCase& c : cases) {
        SCOPED_TRACE(c.text);
        for (std::size_t size : {std::size_t{1}, std::size_t{100}}) {
            JsonStream s;
            EXPECT_EQ(run(s, c.text, {size}), StreamState::kInvalid);
            EXPECT_EQ(s.error().message, c.message);
            EXPECT_EQ(s.error().offset, c.offset);
        }
    }
}

TEST(JsonStreamTest, TruncatedDocumentsFailAtTheEnd) {
    for (std::string_view text : {"", "[", "{\"a\"", "{\"a\":", "[1,", "\"abc", "tr", "-", "1e", "\xef\xbb"}) {
        SCOPED_TRACE(text);
        JsonStream s;
        EXPECT_NE(s.feed(text), StreamState::kInvalid);
        EXPECT_EQ(s.finish(), StreamState::kInvalid);
    }
    JsonStream bom;
    EXPECT_EQ(run(bom, "\xef\xbb\xbf{}", {1}), StreamState::kComplete);
}

TEST(JsonStreamTest, LimitsMatchTheWholeDocumentParser) {
    json::ParseOptions o;
    o.max_depth = 3;
    o.max_members = 2;
    o.max_string_bytes = 4;
    o.max_integer_digits = 3;
    const char* docs[] = {"[[[1]]]",
                          "[[[[1]]]]",
                          "[1,2]",
                          "[1,2,3]",
                          "{\"a\":1,\"b\":2}",
                          "{\"a\":1,\"b\":2,\"c\":3}",
                          "\"abcd\"",
                          "\"abcde\"",
                          "\"\\u00e9\\u00e9\"",
                          "\"\\u00e9\\u00e9x\"",
                          "123",
                          "-1234",
                          "1234",
                          "18446744073709551615",
                          "18446744073709551616",
                          "-9223372036854775808",
                          "-9223372036854775809",
                          "123456789012345678901234"};
    for (const char* d : docs) {
        SCOPED_TRACE(d);
        base::Arena arena;
        json::ParseError whole;
        const bool accepted = json::parse(d, arena, o, &whole).is_ok();
        JsonStream s(nullptr, o);
        EXPECT_EQ(run(s, d, {1}) == StreamState::kComplete, accepted);
        if (!accepted) {
            EXPECT_EQ(s.error().kind, json::ParseErrorKind::kLimit) << s.error().message;
        }
    }
}

TEST(JsonStreamTest, AnEventsRefusalIsTheStreamsError) {
    struct NoFalse final : JsonEvents {
        base::Status boolean(bool v) override {
            return v ? base::Status::ok() : base::Status::invalid_argument("false is not allowed here");
        }
    } events;
    JsonStream s(&events);
    EXPECT_EQ(s.feed("[true, fals"), StreamState::kPartial);
    EXPECT_EQ(s.feed("e, true]"), StreamState::kInvalid);
    EXPECT_EQ(s.error().message, "false is not allowed here");
    EXPECT_EQ(s.error().offset, 11u);
    EXPECT_EQ(s.feed("]"), StreamState::kInvalid);  // stays invalid
}

}  // namespace
}  // namespace slipstream::agent::structured
