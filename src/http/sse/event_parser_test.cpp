// EventParser: every case fed whole, split at every byte and at every pair of bytes, and byte by byte, must give
// what a whole-stream reading of the WHATWG algorithm gives; limits; comments; retry; the BOM.
#include "http/sse/event_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/sse/event_encoder.h"

namespace slipstream::http::sse {
namespace {

struct Seen {
    std::string kind;  // "event", "comment", "retry"
    std::string type, data, id;
    friend bool operator==(const Seen&, const Seen&) = default;
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
    return os << s.kind << "{" << s.type << "|" << s.data << "|" << s.id << "}";
}

struct Collect final : EventSink {
    std::vector<Seen> seen;
    int stop_after = -1;  // events before the sink refuses
    base::Status on_event(const ParsedEvent& e) override {
        seen.push_back({"event", std::string(e.type), std::string(e.data), std::string(e.id)});
        if (stop_after >= 0 && static_cast<int>(seen.size()) > stop_after) return base::Status::cancelled("enough");
        return base::Status::ok();
    }
    base::Status on_comment(std::string_view text) override {
        seen.push_back({"comment", "", std::string(text), ""});
        return base::Status::ok();
    }
    void on_retry(std::uint64_t ms) override { seen.push_back({"retry", "", std::to_string(ms), ""}); }
};

// The algorithm read directly off the specification, on the whole stream at once.
std::vector<Seen> reference(std::string_view s, bool* dropped) {
    std::vector<Seen> out;
    if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
    std::string data, type, id;
    bool fields = false;
    while (!s.empty()) {
        std::size_t cut = s.find_first_of("\r\n");
        std::string_view line = s.substr(0, cut);
        if (cut == std::string_view::npos) {
            s = {};
        } else if (s[cut] == '\r' && cut + 1 < s.size() && s[cut + 1] == '\n') {
            s.remove_prefix(cut + 2);
        } else {
            s.remove_prefix(cut + 1);
        }
        if (line.empty()) {
            fields = false;
            if (data.empty()) {
                type.clear();
                continue;
            }
            data.pop_back();
            out.push_back({"event", type.empty() ? "message" : type, data, id});
            data.clear();
            type.clear();
            continue;
        }
        if (line[0] == ':') {
            out.push_back({"comment", "", std::string(line.substr(1)), ""});
            continue;
        }
        fields = true;
        std::size_t colon = line.find(':');
        std::string_view field = line.substr(0, colon);
        std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
        if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
        if (field == "data") {
            data.append(value);
            data.push_back('\n');
        } else if (field == "event") {
            type = value;
        } else if (field == "id") {
            if (value.find('\0') == std::string_view::npos) id = value;
        } else if (field == "retry") {
            bool digits = !value.empty();
            for (char c : value)
                digits = digits && c >= '0' && c <= '9';
            if (digits) out.push_back({"retry", "", std::to_string(std::stoull(std::string(value))), ""});
        }
    }
    *dropped = fields;
    return out;
}

std::vector<Seen> run(const std::vector<std::string_view>& pieces, bool* dropped) {
    EventParser p;
    Collect c;
    for (std::string_view piece : pieces)
        EXPECT_TRUE(p.feed(piece, c).is_ok());
    EXPECT_TRUE(p.finish(c, dropped).is_ok());
    return c.seen;
}

const std::vector<std::string> kCases = {
    "data: hello\n\n",
    "data: a\r\ndata: b\r\n\r\n",
    "data: a\rdata: b\r\r",
    "data: a\r\n\ndata:b\n\r\n",
    "event: tick\nid: 7\ndata: x\n\ndata: y\n\n",
    "id: 1\ndata: x\n\nid\ndata: y\n\n",
    std::string("id: a\0b\ndata: z\n\n", 17),
    ": comment\n:\ndata\n\n",
    "data\ndata\n\n",
    "data:no-space\ndata:  two\n\n",
    "event: only type\n\ndata: after\n\n",
    "retry: 3000\nretry: 3x\nretry:\nretry: 12\n\n",
    "foo: bar\ndata: keep\n\n",
    "\xEF\xBB\xBF"
    "data: bom\n\n",
    "\xEF\xBB\xBF\xEF\xBB\xBF"
    "data: two boms\n\n",
    "\xEF\xBB"
    "data: half bom\n\n",
    "\xEF"
    "\n\n",
    "data: unterminated",
    "data: pending\n",
    "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"a\\\":\"}}]}\n\ndata: [DONE]\n\n",
    "\r\n\r\n\n\r",
    "data: x\r",
    "data: x\r\r",
    ":",
    "event:e\rdata:d\r\r:c\rid:i\r\r",
};

TEST(EventParser, WholeSplitAndByteByByteAgreeWithTheAlgorithm) {
    for (const std::string& c : kCases) {
        SCOPED_TRACE(testing::PrintToString(c));
        bool ref_dropped = false;
        std::vector<Seen> want = reference(c, &ref_dropped);
        bool dropped = false;
        EXPECT_EQ(run({c}, &dropped), want);
        EXPECT_EQ(dropped, ref_dropped);
        std::vector<std::string_view> bytes;
        for (std::size_t i = 0; i < c.size(); ++i)
            bytes.emplace_back(c.data() + i, 1);
        EXPECT_EQ(run(bytes, &dropped), want);
        EXPECT_EQ(dropped, ref_dropped);
        std::string_view v(c);
        for (std::size_t i = 0; i <= c.size(); ++i) {
            for (std::size_t j = i; j <= c.size(); ++j) {
                EXPECT_EQ(run({v.substr(0, i), v.substr(i, j - i), v.substr(j)}, &dropped), want) << i << "," << j;
                EXPECT_EQ(dropped, ref_dropped);
            }
        }
    }
}

TEST(EventParser, EncoderOutputReadsBack) {
    std::string wire;
    ASSERT_TRUE(EventEncoder::append_event({.data = "a\nb", .event = "t", .id = "9"}, wire).is_ok());
    EventEncoder::append_comment("hb", wire);
    EventEncoder::append_retry(250, wire);
    ASSERT_TRUE(EventEncoder::append_event({.data = ""}, wire).is_ok());
    bool dropped = true;
    std::vector<Seen> got = run({wire}, &dropped);
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0], (Seen{"event", "t", "a\nb", "9"}));
    EXPECT_EQ(got[1], (Seen{"comment", "", " hb", ""}));
    EXPECT_EQ(got[2], (Seen{"retry", "", "250", ""}));
    // An empty data line still dispatches: the buffer holds its LF, which is removed.
    EXPECT_EQ(got[3], (Seen{"event", "message", "", "9"}));
    EXPECT_FALSE(dropped);
}

TEST(EventParser, LineLimit) {
    EventParser p(EventParserLimits{.max_line_bytes = 8, .max_event_bytes = 100});
    Collect c;
    EXPECT_TRUE(p.feed("data: 12", c).is_ok());  // 8 bytes: at the limit
    base::Status s = p.feed("3", c);
    EXPECT_TRUE(s.is_out_of_range()) << s.to_string();
    EXPECT_TRUE(p.feed("\n\n", c).is_out_of_range());  // stays failed
    EventParser q(EventParserLimits{.max_line_bytes = 8, .max_event_bytes = 100});
    EXPECT_TRUE(q.feed("data: 123456789\n", c).is_out_of_range());  // whole line in one chunk
    q.reset();
    EXPECT_TRUE(q.feed("data: 12\n\n", c).is_ok());
}

TEST(EventParser, EventLimit) {
    EventParser p(EventParserLimits{.max_line_bytes = 100, .max_event_bytes = 10});
    Collect c;
    EXPECT_TRUE(p.feed("data: 1234\ndata: 1234\n", c).is_ok());  // 10 bytes with the LFs
    EXPECT_TRUE(p.feed("data:\n", c).is_out_of_range());
    EventParser q(EventParserLimits{.max_line_bytes = 100, .max_event_bytes = 10});
    // Dispatching frees the budget: many small events pass.
    for (int i = 0; i < 100; ++i)
        ASSERT_TRUE(q.feed("data: 12345678\n\n", c).is_ok());
}

TEST(EventParser, SinkErrorStopsAtThatEvent) {
    EventParser p;
    Collect c;
    c.stop_after = 1;
    base::Status s = p.feed("data: 1\n\ndata: 2\n\ndata: 3\n\n", c);
    EXPECT_TRUE(s.is_cancelled());
    EXPECT_EQ(c.seen.size(), 2u);
    EXPECT_TRUE(p.feed("data: 4\n\n", c).is_cancelled());
    EXPECT_EQ(c.seen.size(), 2u);
}

TEST(EventParser, LastEventIdAndPending) {
    EventParser p;
    Collect c;
    ASSERT_TRUE(p.feed("id: 42\ndata: x\n\nda", c).is_ok());
    EXPECT_EQ(p.last_event_id(), "42");
    EXPECT_TRUE(p.pending());
    ASSERT_TRUE(p.feed("ta: y\n\n", c).is_ok());
    EXPECT_FALSE(p.pending());
    EXPECT_EQ(p.bytes(), 25u);
}

}  // namespace
}  // namespace slipstream::http::sse
