// Tests: HPACK Huffman coding against RFC 7541 Appendix C strings, round trips and every decoding error.
#include "http/h2/hpack/hpack_huffman.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "http/h2/hpack/hpack_test_sinks.h"

namespace slipstream::http::h2 {
namespace {

using hpack_test::unhex;

struct Vector {
    std::string_view text;
    std::string_view code;
};

// The Huffman-coded strings of RFC 7541 Appendix C.4 and C.6.
constexpr Vector kRfcVectors[] = {
    {"www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"},
    {"no-cache", "a8eb 1064 9cbf"},
    {"custom-key", "25a8 49e9 5ba9 7d7f"},
    {"custom-value", "25a8 49e9 5bb8 e8b4 bf"},
    {"302", "6402"},
    {"private", "aec3 771a 4b"},
    {"Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"},
    {"https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"},
    {"307", "640e ff"},
    {"Mon, 21 Oct 2013 20:13:22 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff"},
    {"gzip", "9bd9 ab"},
    {"foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
     "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 "
     "07"},
};

TEST(HpackHuffman, RfcVectorsEncode) {
    for (const Vector& v : kRfcVectors) {
        std::string out = "x";
        huffman_encode(v.text, out);
        EXPECT_EQ(out, "x" + unhex(v.code)) << v.text;
        EXPECT_EQ(huffman_encoded_size(v.text), unhex(v.code).size()) << v.text;
    }
}

TEST(HpackHuffman, RfcVectorsDecode) {
    for (const Vector& v : kRfcVectors) {
        std::string out = "x";
        ASSERT_TRUE(huffman_decode(unhex(v.code), out)) << v.text;
        EXPECT_EQ(out, "x" + std::string(v.text));
    }
}

TEST(HpackHuffman, EverySymbolRoundTrips) {
    for (int c = 0; c < 256; ++c) {
        for (std::size_t n : {1, 2, 3, 7, 8, 9, 33}) {
            std::string s(n, static_cast<char>(c));
            std::string code;
            huffman_encode(s, code);
            ASSERT_EQ(code.size(), huffman_encoded_size(s));
            std::string back;
            ASSERT_TRUE(huffman_decode(code, back)) << c << " x" << n;
            ASSERT_EQ(back, s);
        }
    }
}

TEST(HpackHuffman, RandomStringsRoundTrip) {
    std::mt19937 rng(7541);
    for (int i = 0; i < 3000; ++i) {
        std::string s(rng() % 80, '\0');
        bool ascii = i % 2 == 0;
        for (char& c : s)
            c = static_cast<char>(ascii ? 32 + rng() % 95 : rng() % 256);
        std::string code;
        huffman_encode(s, code);
        ASSERT_EQ(code.size(), huffman_encoded_size(s));
        std::string back;
        ASSERT_TRUE(huffman_decode(code, back));
        ASSERT_EQ(back, s);
    }
}

// The encoder's one-pass form: the code when shorter, else s.size(), never writing past s.size() + 8.
TEST(HpackHuffman, EncodeIfShorter) {
    std::mt19937 rng(41);
    for (int i = 0; i < 3000; ++i) {
        std::string s(rng() % 140, '\0');
        int kind = i % 3;  // hex-like, printable, any byte
        for (char& c : s) {
            c = static_cast<char>(kind == 0   ? "0123456789abcdef"[rng() % 16]
                                  : kind == 1 ? 32 + rng() % 95
                                              : rng() % 256);
        }
        std::string buf(s.size() + 8 + 16, '\x55');
        std::size_t n = detail::huffman_encode_if_shorter(s, buf.data());
        std::size_t size = huffman_encoded_size(s);
        ASSERT_EQ(n, std::min(size, s.size())) << i;
        if (size < s.size()) {
            std::string code;
            huffman_encode(s, code);
            ASSERT_EQ(buf.substr(0, n), code);
        }
        ASSERT_EQ(buf.substr(s.size() + 8), std::string(16, '\x55')) << "wrote past s.size() + 8";
    }
}

TEST(HpackHuffman, EmptyString) {
    std::string code;
    huffman_encode("", code);
    EXPECT_EQ(code, "");
    EXPECT_EQ(huffman_encoded_size(""), 0u);
    std::string out;
    EXPECT_TRUE(huffman_decode("", out));
    EXPECT_EQ(out, "");
}

struct Case {
    std::string_view name;
    std::string_view hex;
    bool ok;
    std::string_view decoded;
};

// 'a' is 00011 (5 bits), '0' 00000, '1' 00001, '!' 1111111000 (10 bits), LF 28 ones then 00, EOS 30 ones.
constexpr Case kCases[] = {
    {"a with 3 bits of padding", "1f", true, "a"},
    {"a with padding not all ones", "18", false, ""},
    {"a with padding 110", "1e", false, ""},
    {"padding of 8 bits alone", "ff", false, ""},
    {"a then 11 bits of padding", "1fff", false, ""},
    {"EOS then 2 bits of padding", "ffffffff", false, ""},
    {"a then EOS", "1fff ffff ff", false, ""},
    {"EOS then a", "ffff fffc 7f", false, ""},
    {"a prefix of a 10-bit code", "fe", false, ""},
    {"two codes then 6 bits of padding", "00ff", true, "0a"},
    {"0 then 1 then 3 bits of padding", "007f", true, "01"},
    {"! then 6 bits of padding", "fe3f", true, "!"},
    {"! then 14 bits of padding", "fe3f ff", false, ""},
    {"a 30-bit code (LF) then padding", "ffff fff3", true, "\n"},
    {"LF then padding 01", "ffff fff1", false, ""},
    {"a 28-bit code (0x02) then padding", "ffff fe2f", true, "\x02"},
    {"0 twelve times then padding", "0000 0000 0000 000f", true, "000000000000"},
    {"0 twelve times then 12 bits of padding", "0000 0000 0000 000f ff", false, ""},
};

TEST(HpackHuffman, DecodeCases) {
    for (const Case& c : kCases) {
        std::string out;
        EXPECT_EQ(huffman_decode(unhex(c.hex), out), c.ok) << c.name;
        if (c.ok) {
            EXPECT_EQ(out, c.decoded) << c.name;
        }
    }
}

TEST(HpackHuffman, EveryTruncationOfALongStringFailsOrDecodesAPrefix) {
    std::string s = "Mon, 21 Oct 2013 20:13:21 GMT \x01\x7f\xff{}|";
    std::string code;
    huffman_encode(s, code);
    for (std::size_t n = 0; n < code.size(); ++n) {
        std::string out;
        if (huffman_decode(std::string_view(code).substr(0, n), out)) {
            EXPECT_EQ(s.substr(0, out.size()), out) << n;
        }
    }
}

}  // namespace
}  // namespace slipstream::http::h2
