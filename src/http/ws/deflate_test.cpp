// permessage-deflate tests: negotiation, RFC 7692 examples, round trips, context takeover, the bomb cap.
#include <gtest/gtest.h>

#include <random>

#include "http/ws/deflate_config.h"
#include "http/ws/inflater.h"
#include "http/ws/test_frames.h"

namespace slipstream::http::ws {
namespace {

using testing::hex;

TEST(DeflateConfig, Negotiation) {
    struct Case {
        const char* name;
        std::string offer;
        std::string response;  // empty: declined
    };
    const Case cases[] = {
        {"plain", "permessage-deflate", "permessage-deflate"},
        {"client_max_window_bits without value", "permessage-deflate; client_max_window_bits", "permessage-deflate"},
        {"client_max_window_bits=10", "permessage-deflate; client_max_window_bits=10", "permessage-deflate"},
        {"no context takeover both", "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
         "permessage-deflate; server_no_context_takeover; client_no_context_takeover"},
        {"server window", "permessage-deflate; server_max_window_bits=10",
         "permessage-deflate; server_max_window_bits=10"},
        {"quoted value", "permessage-deflate; server_max_window_bits=\"12\"",
         "permessage-deflate; server_max_window_bits=12"},
        {"server window 8 declined", "permessage-deflate; server_max_window_bits=8", ""},
        {"window 16 declined", "permessage-deflate; server_max_window_bits=16", ""},
        {"window missing value", "permessage-deflate; server_max_window_bits", ""},
        {"unknown param", "permessage-deflate; foo", ""},
        {"duplicate param", "permessage-deflate; server_no_context_takeover; server_no_context_takeover", ""},
        {"value on flag", "permessage-deflate; client_no_context_takeover=1", ""},
        {"other extension", "x-webkit-deflate-frame", ""},
        {"fallback offer", "permessage-deflate; server_max_window_bits=8, permessage-deflate; client_max_window_bits",
         "permessage-deflate"},
        {"empty", "", ""},
    };
    for (const Case& c : cases) {
        std::optional<DeflateConfig> cfg = negotiate_deflate(c.offer);
        EXPECT_EQ(cfg ? cfg->response_header() : "", c.response) << c.name;
    }
}

TEST(Inflater, Rfc7692Examples) {
    struct Case {
        const char* name;
        std::string compressed;
        std::string expected;
    };
    const Case cases[] = {
        {"Hello", hex("f2 48 cd c9 c9 07 00"), "Hello"},
        {"no compression block", hex("00 05 00 fa ff 48 65 6c 6c 6f 00"), "Hello"},
        {"bfinal", hex("f3 48 cd c9 c9 07 00 00"), "Hello"},
    };
    for (const Case& c : cases) {
        Inflater inf;
        std::string out;
        ASSERT_TRUE(inf.feed(c.compressed, out, 1000).is_ok()) << c.name;
        ASSERT_TRUE(inf.end_message(out, 1000, false).is_ok()) << c.name;
        EXPECT_EQ(out, c.expected) << c.name;
    }
}

TEST(Inflater, SharedWindowAcrossMessages) {
    // RFC 7692 §7.2.3.2: the second "Hello" refers back into the first message's window.
    Inflater inf;
    std::string first, second;
    ASSERT_TRUE(inf.feed(hex("f2 48 cd c9 c9 07 00"), first, 100).is_ok());
    ASSERT_TRUE(inf.end_message(first, 100, false).is_ok());
    ASSERT_TRUE(inf.feed(hex("f2 00 11 00 00"), second, 100).is_ok());
    ASSERT_TRUE(inf.end_message(second, 100, false).is_ok());
    EXPECT_EQ(first, "Hello");
    EXPECT_EQ(second, "Hello");
}

TEST(Inflater, CorruptData) {
    Inflater inf;
    std::string out;
    base::Status s = inf.feed(hex("ff ff ff ff"), out, 1000);
    EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
}

TEST(Inflater, BombStopsAtCap) {
    Deflater def(15, false);
    std::string zeros(10 * 1024 * 1024, '\0');
    std::string compressed;
    ASSERT_TRUE(def.compress(zeros, compressed).is_ok());
    ASSERT_LT(compressed.size(), 20 * 1024u);  // ~1000:1
    Inflater inf;
    std::string out;
    base::Status s = inf.feed(compressed, out, 64 * 1024);
    EXPECT_TRUE(s.is_out_of_range()) << s.to_string();
    EXPECT_EQ(out.size(), 64 * 1024u + 1);  // never more than one byte past the cap
}

TEST(Deflater, RoundTripsWithAndWithoutContextTakeover) {
    std::mt19937 rng(7);
    std::vector<std::string> messages = {"", "a", "Hello", std::string(100000, 'z')};
    std::string random(5000, '\0');
    for (char& c : random)
        c = static_cast<char>(rng());
    messages.push_back(random);
    messages.push_back("Hello");
    for (bool reset : {false, true}) {
        for (int bits : {9, 12, 15}) {
            Deflater def(bits, reset);
            Inflater inf;
            for (const std::string& m : messages) {
                std::string c, back;
                ASSERT_TRUE(def.compress(m, c).is_ok());
                ASSERT_TRUE(inf.feed(c, back, 1 << 20).is_ok());
                ASSERT_TRUE(inf.end_message(back, 1 << 20, false).is_ok());
                EXPECT_EQ(back, m) << "bits " << bits << " reset " << reset << " size " << m.size();
            }
        }
    }
}

TEST(Deflater, StripsSyncFlushTail) {
    Deflater def(15, true);
    std::string c;
    ASSERT_TRUE(def.compress("Hello", c).is_ok());
    EXPECT_EQ(c, hex("f2 48 cd c9 c9 07 00"));
}

}  // namespace
}  // namespace slipstream::http::ws
