// Accept-Encoding parsing and negotiation: header lines in, chosen coding out.
#include "http/compression/accept_encoding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slipstream::http::compression {
namespace {

constexpr Encoding kPreference[] = {Encoding::kZstd, Encoding::kBrotli, Encoding::kGzip};

struct ChooseCase {
    std::vector<std::string> lines;  // each an Accept-Encoding field value; empty vector: no field
    Encoding expected;
};

TEST(AcceptEncoding, Choose) {
    const ChooseCase cases[] = {
        {{}, Encoding::kIdentity},
        {{""}, Encoding::kIdentity},
        {{"gzip"}, Encoding::kGzip},
        {{"GZIP"}, Encoding::kGzip},
        {{"x-gzip"}, Encoding::kGzip},
        {{"br"}, Encoding::kBrotli},
        {{"zstd"}, Encoding::kZstd},
        {{"gzip, deflate, br, zstd"}, Encoding::kZstd},  // equal weights: the server's order
        {{"gzip, deflate, br"}, Encoding::kBrotli},
        {{"gzip;q=1.0, br;q=0.5"}, Encoding::kGzip},
        {{"gzip;q=0.5, br;q=0.8, zstd;q=0.1"}, Encoding::kBrotli},
        {{"gzip ; q=0.9 ,br;Q=0.95"}, Encoding::kBrotli},
        {{"gzip;q=0"}, Encoding::kIdentity},
        {{"br;q=0, gzip"}, Encoding::kGzip},
        {{"*"}, Encoding::kZstd},
        {{"*;q=0.5, gzip"}, Encoding::kGzip},
        {{"*;q=0.5, zstd;q=0"}, Encoding::kBrotli},
        {{"*;q=0"}, Encoding::kIdentity},
        {{"identity"}, Encoding::kIdentity},
        {{"identity;q=1, gzip;q=0.5"}, Encoding::kIdentity},  // the client prefers identity
        {{"identity;q=0.5, gzip;q=0.5"}, Encoding::kGzip},    // ties go to compression
        {{"gzip;q=0.2"}, Encoding::kGzip},                    // unlisted identity is the last choice
        {{"deflate"}, Encoding::kIdentity},                   // not offered
        {{"compress, sdch"}, Encoding::kIdentity},            // unknown codings are ignored
        {{"gzip;q=2"}, Encoding::kIdentity},                  // malformed q: element skipped
        {{"gzip;q=0.1234"}, Encoding::kIdentity},
        {{"gzip;q=abc, br"}, Encoding::kBrotli},
        {{"gzip;level=9"}, Encoding::kGzip},  // other parameters are ignored
        {{",, gzip ,"}, Encoding::kGzip},
        {{"gzip;q=0.5", "br;q=0.7"}, Encoding::kBrotli},  // several lines form one list
    };
    for (const ChooseCase& c : cases) {
        AcceptEncoding ae;
        std::string trace;
        for (const std::string& line : c.lines) {
            ae.add(line);
            trace += "[" + line + "]";
        }
        SCOPED_TRACE(trace);
        EXPECT_EQ(ae.choose(kPreference), c.expected);
    }
}

TEST(AcceptEncoding, WeightsAndIdentityRefusal) {
    struct Case {
        std::string line;
        int gzip;
        int identity;
        bool refused;
    };
    const Case cases[] = {
        {"gzip", 1000, 1000, false}, {"gzip;q=0.3", 300, 1000, false},         {"identity;q=0", 0, 0, true},
        {"*;q=0", 0, 0, true},       {"*;q=0, identity;q=0.1", 0, 100, false}, {"*;q=0.25", 250, 250, false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.line);
        AcceptEncoding ae;
        ae.add(c.line);
        EXPECT_EQ(ae.weight(Encoding::kGzip), c.gzip);
        EXPECT_EQ(ae.weight(Encoding::kIdentity), c.identity);
        EXPECT_EQ(ae.identity_refused(), c.refused);
    }
}

TEST(AcceptEncoding, QValues) {
    const std::pair<const char*, int> cases[] = {
        {"0", 0},     {"1", 1000}, {"0.5", 500},  {"0.05", 50},   {"0.001", 1}, {"1.000", 1000},
        {"1.", 1000}, {"0.", 0},   {"1.001", -1}, {"0.0001", -1}, {"2", -1},    {"", -1},
        {".5", -1},   {"0,5", -1}, {"-0.5", -1},  {"0.5 ", -1},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        EXPECT_EQ(parse_qvalue(text), expected);
    }
}

TEST(Encoding, Tokens) {
    for (Encoding e : kAllEncodings) {
        ASSERT_TRUE(parse_encoding(encoding_token(e)).has_value());
        EXPECT_EQ(*parse_encoding(encoding_token(e)), e);
    }
    EXPECT_EQ(encoding_token(Encoding::kBrotli), "br");
    EXPECT_FALSE(parse_encoding("brotli").has_value());
    EXPECT_FALSE(parse_encoding("").has_value());
    EXPECT_EQ(*parse_encoding("ZStd"), Encoding::kZstd);
}

}  // namespace
}  // namespace slipstream::http::compression
