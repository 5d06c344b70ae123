// SSE encoding: exact bytes per field, and a WHATWG-conformant parse of the output gives the data back.
#include "http/sse/event_encoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slipstream::http::sse {
namespace {

struct Case {
    const char* name;
    Event event;
    std::string wire;
};

TEST(EventEncoder, ExactBytes) {
    const Case cases[] = {
        {"plain", {.data = "hello"}, "data: hello\n\n"},
        {"empty data still dispatches", {.data = ""}, "data: \n\n"},
        {"LF", {.data = "a\nb"}, "data: a\ndata: b\n\n"},
        {"CR", {.data = "a\rb"}, "data: a\ndata: b\n\n"},
        {"CRLF", {.data = "a\r\nb"}, "data: a\ndata: b\n\n"},
        {"LF CR is two breaks", {.data = "a\n\rb"}, "data: a\ndata: \ndata: b\n\n"},
        {"trailing LF", {.data = "a\n"}, "data: a\ndata: \n\n"},
        {"trailing CR", {.data = "a\r"}, "data: a\ndata: \n\n"},
        {"only CRLF", {.data = "\r\n"}, "data: \ndata: \n\n"},
        {"leading space kept", {.data = " x"}, "data:  x\n\n"},
        {"colon in data", {.data = "k: v"}, "data: k: v\n\n"},
        {"all fields",
         {.data = "d", .event = "tick", .id = "42", .retry_ms = 3000},
         "event: tick\nid: 42\nretry: 3000\ndata: d\n\n"},
        {"utf-8", {.data = "h\xc3\xa9llo", .event = "\xc3\xa9v"}, "event: \xc3\xa9v\ndata: h\xc3\xa9llo\n\n"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        std::string out = "prefix|";
        ASSERT_TRUE(EventEncoder::append_event(c.event, out).is_ok());
        EXPECT_EQ(out, "prefix|" + c.wire);
        EXPECT_LE(out.size() - 7, EventEncoder::encoded_size_bound(c.event));
    }
}

TEST(EventEncoder, RefusesMultiLineNamesAndIds) {
    const Event bad[] = {{.data = "x", .event = "a\nb"},
                         {.data = "x", .event = "a\r"},
                         {.data = "x", .id = "1\n2"},
                         {.data = "x",
                          .id = std::string_view("1\0"
                                                 "2",
                                                 3)}};
    for (const Event& e : bad) {
        std::string out = "kept";
        base::Status s = EventEncoder::append_event(e, out);
        EXPECT_TRUE(s.is_invalid_argument());
        EXPECT_EQ(out, "kept");
    }
}

TEST(EventEncoder, CommentsAndRetry) {
    std::string out;
    EventEncoder::append_comment("heartbeat", out);
    EXPECT_EQ(out, ": heartbeat\n\n");
    out.clear();
    EventEncoder::append_comment("two\nlines", out);
    EXPECT_EQ(out, ": two\n: lines\n\n");
    out.clear();
    EventEncoder::append_retry(1500, out);
    EXPECT_EQ(out, "retry: 1500\n\n");
    EXPECT_EQ(kHeartbeat, ": heartbeat\n\n");
}

// The event-stream interpretation algorithm (WHATWG HTML §9.2.6), enough to check what a browser sees.
struct Parsed {
    std::string type, data, id;
};

std::vector<Parsed> parse(std::string_view s) {
    std::vector<Parsed> events;
    std::string data, type, id;
    bool has_data = false;
    while (!s.empty()) {
        std::size_t cut = s.find_first_of("\r\n");
        std::string_view line = s.substr(0, cut);
        std::size_t skip = cut == std::string_view::npos                                  ? s.size()
                           : (s[cut] == '\r' && cut + 1 < s.size() && s[cut + 1] == '\n') ? cut + 2
                                                                                          : cut + 1;
        s.remove_prefix(skip);
        if (line.empty()) {
            if (has_data) {
                if (!data.empty() && data.back() == '\n') data.pop_back();
                events.push_back({type.empty() ? "message" : type, data, id});
            }
            data.clear();
            type.clear();
            has_data = false;
            continue;
        }
        if (line[0] == ':') continue;
        std::size_t colon = line.find(':');
        std::string_view field = line.substr(0, colon);
        std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
        if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
        if (field == "data") {
            data.append(value);
            data.push_back('\n');
            has_data = true;
        } else if (field == "event") {
            type = value;
        } else if (field == "id") {
            id = value;
        }
    }
    return events;
}

TEST(EventEncoder, BrowsersReadBackTheData) {
    const std::pair<std::string, std::string> cases[] = {
        {"hello", "hello"},
        {"", ""},
        {"a\nb\nc", "a\nb\nc"},
        {"a\r\nb", "a\nb"},
        {"a\rb", "a\nb"},
        {"\n", "\n"},
        {"x\n\n", "x\n\n"},
        {" lead", " lead"},
        {":not a comment", ":not a comment"},
        {"data: nested", "data: nested"},
    };
    for (const auto& [data, seen] : cases) {
        SCOPED_TRACE(data);
        std::string wire;
        EventEncoder::append_comment("c", wire);
        ASSERT_TRUE(EventEncoder::append_event({.data = data, .event = "e", .id = "7"}, wire).is_ok());
        std::vector<Parsed> got = parse(wire);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].data, seen);
        EXPECT_EQ(got[0].type, "e");
        EXPECT_EQ(got[0].id, "7");
    }
}

// FastAPI's format_sse_event() bytes (the Python front end's tests compare with FastAPI itself).
TEST(EventEncoder, FastApiFieldOrder) {
    struct FieldCase {
        const char* name;
        FieldList fields;
        std::string wire;
    };
    const FieldCase cases[] = {
        {"nothing", {}, "\n"},
        {"data lines", {.data = "a\r\nb\rc\nd"}, "data: a\ndata: b\ndata: c\ndata: d\n\n"},
        {"event id retry", {.event = "e", .id = "7", .retry = 0}, "event: e\nid: 7\nretry: 0\n\n"},
        {"comment and empty data", {.comment = "c", .data = ""}, ": c\ndata: \n\n"},
        {"all, in order",
         {.comment = "a\r\nb", .event = "update", .data = "{\"x\": 1}", .id = "1", .retry = 500},
         ": a\n: b\nevent: update\ndata: {\"x\": 1}\nid: 1\nretry: 500\n\n"},
        {"negative retry as given", {.retry = -1}, "retry: -1\n\n"},
        {"empty event and id are written", {.event = "", .id = ""}, "event: \nid: \n\n"},
    };
    for (const FieldCase& c : cases) {
        SCOPED_TRACE(c.name);
        std::string out = "prefix|";
        EventEncoder::append_fields(c.fields, out);
        EXPECT_EQ(out, "prefix|" + c.wire);
    }
}

}  // namespace
}  // namespace slipstream::http::sse
