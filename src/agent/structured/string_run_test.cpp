// read_string_run against JsonStream: random byte runs (quotes, escapes, surrogates, UTF-8 pieces, control bytes)
// read after an opening quote must end the same way, and the characters begun must be what maxLength counts.
#include "agent/structured/string_run.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "agent/structured/json_stream.h"

namespace slipstream::agent::structured {
namespace {

// Counts the code points the stream hands over (whole characters, decoded).
struct Counter : JsonEvents {
    std::size_t points = 0;
    base::Status string(std::string_view piece, bool) override {
        for (char c : piece)
            points += (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 1 : 0;
        return base::Status::ok();
    }
};

TEST(StringRunTest, AgreesWithTheStream) {
    const std::vector<std::string> pieces = {
        "a",     " ",    "\"",   "\\",   "\\n",  "\\u",  "\\u00e9",  "\\ud83d", "\\ude00",  "\\udc",
        "\\ud8", "\\u0", "d",    "c",    "\xC3", "\xA9", "\xE4\xB8", "\xAD",    "\xF0\x9F", "\x98\x80",
        "\xED",  "\xA0", "\xC0", "\x01", "\n",   "\x7F", "x",        "0"};
    std::mt19937_64 rng(11);
    for (int round = 0; round < 20000; ++round) {
        std::string run;
        const int n = 1 + static_cast<int>(rng() % 6);
        for (int i = 0; i < n; ++i)
            run += pieces[rng() % pieces.size()];
        const StringRun r = read_string_run(run);
        JsonStream stream(nullptr);
        ASSERT_EQ(stream.feed("\""), StreamState::kPartial);
        const StreamState s = stream.feed(run);
        SCOPED_TRACE(run);
        if (r.kind == StringRun::Kind::kInvalid) {
            EXPECT_EQ(s, StreamState::kInvalid);
            continue;
        }
        if (r.kind == StringRun::Kind::kBody) {
            EXPECT_EQ(s, StreamState::kPartial);
            EXPECT_TRUE(stream.in_string());
        } else {  // the stream took the quote and the string ended there (what follows may be refused)
            JsonStream upto(nullptr);
            upto.feed("\"");
            EXPECT_EQ(upto.feed(run.substr(0, r.quote + 1)), StreamState::kComplete);
        }
        // Characters begun: the whole ones decoded, and one more when an escape or a UTF-8 sequence is unfinished.
        Counter count;
        JsonStream measured(&count);
        measured.feed("\"");
        measured.feed(run.substr(0, r.kind == StringRun::Kind::kCloses ? r.quote : run.size()));
        EXPECT_EQ(r.chars, count.points + (measured.at_char_boundary() ? 0 : 1));
    }
}

}  // namespace
}  // namespace slipstream::agent::structured
