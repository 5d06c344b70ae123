// Tests: the HPACK encoder's exact bytes (RFC 7541 C.4, C.6), representation choices and size updates.
#include "http/h2/hpack/hpack_encoder.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "http/h2/hpack/hpack_decoder.h"
#include "http/h2/hpack/hpack_test_sinks.h"

namespace slipstream::http::h2 {
namespace {

using hpack_test::CollectFields;
using hpack_test::Fields;
using hpack_test::unhex;

struct StatusCase {
    int code;
    std::string_view hex;
};

constexpr StatusCase kStatuses[] = {
    {200, "88"}, {204, "89"},         {206, "8a"},         {304, "8b"},           {400, "8c"},         {404, "8d"},
    {500, "8e"}, {201, "08 82 1003"}, {302, "08 82 6402"}, {999, "08 03 393939"}, {100, "08 82 0801"},
};

TEST(HpackEncoder, Status) {
    for (const StatusCase& c : kStatuses) {
        HpackEncoder e;
        std::string out;
        e.status(out, c.code);
        EXPECT_EQ(out, unhex(c.hex)) << c.code;
        HpackDecoder d;
        CollectFields sink;
        ASSERT_EQ(d.decode(out, sink), HpackStatus::kOk) << c.code;
        EXPECT_EQ(sink.fields, (Fields{{":status", std::to_string(c.code)}}));
        EXPECT_EQ(e.table().count(), 0u);
    }
}

TEST(HpackEncoder, RfcC4Requests) {
    HpackEncoder e;
    std::string out;
    e.begin_block(out);
    e.field(out, ":method", "GET", HpackIndexing::kIncremental);
    e.field(out, ":scheme", "http", HpackIndexing::kIncremental);
    e.field(out, ":path", "/", HpackIndexing::kIncremental);
    e.field(out, ":authority", "www.example.com", HpackIndexing::kIncremental);
    EXPECT_EQ(out, unhex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"));
    out.clear();
    e.begin_block(out);
    e.field(out, ":method", "GET", HpackIndexing::kIncremental);
    e.field(out, ":scheme", "http", HpackIndexing::kIncremental);
    e.field(out, ":path", "/", HpackIndexing::kIncremental);
    e.field(out, ":authority", "www.example.com", HpackIndexing::kIncremental);
    e.field(out, "cache-control", "no-cache", HpackIndexing::kIncremental);
    EXPECT_EQ(out, unhex("8286 84be 5886 a8eb 1064 9cbf"));
    out.clear();
    e.begin_block(out);
    e.field(out, ":method", "GET", HpackIndexing::kIncremental);
    e.field(out, ":scheme", "https", HpackIndexing::kIncremental);
    e.field(out, ":path", "/index.html", HpackIndexing::kIncremental);
    e.field(out, ":authority", "www.example.com", HpackIndexing::kIncremental);
    e.field(out, "custom-key", "custom-value", HpackIndexing::kIncremental);
    EXPECT_EQ(out, unhex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"));
    EXPECT_EQ(e.table().size(), 164u);
}

// C.6 with a 256-byte table: our cap below 4096 is announced first (3fe101 = size update to 256). Strings go
// Huffman-coded only when strictly shorter, so C.6.2 carries "307" raw.
TEST(HpackEncoder, RfcC6Responses) {
    HpackEncoder e(256);
    const std::string date1 = "Mon, 21 Oct 2013 20:13:21 GMT";
    const std::string location = "https://www.example.com";
    std::string out;
    e.begin_block(out);
    e.field(out, ":status", "302", HpackIndexing::kIncremental);
    e.field(out, "cache-control", "private", HpackIndexing::kIncremental);
    e.field(out, "date", date1, HpackIndexing::kIncremental);
    e.field(out, "location", location, HpackIndexing::kIncremental);
    EXPECT_EQ(out, unhex("3fe101 4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 "
                         "2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"));
    EXPECT_EQ(e.table().size(), 222u);
    out.clear();
    e.begin_block(out);
    e.field(out, ":status", "307", HpackIndexing::kIncremental);
    e.field(out, "cache-control", "private", HpackIndexing::kIncremental);
    e.field(out, "date", date1, HpackIndexing::kIncremental);
    e.field(out, "location", location, HpackIndexing::kIncremental);
    // The RFC Huffman-codes "307" (640eff); it is no shorter than the 3 raw bytes we send.
    EXPECT_EQ(out, unhex("4803 333037 c1c0 bf"));
    out.clear();
    e.begin_block(out);
    e.status(out, 200);
    e.field(out, "cache-control", "private", HpackIndexing::kIncremental);
    e.field(out, "date", "Mon, 21 Oct 2013 20:13:22 GMT", HpackIndexing::kIncremental);
    e.field(out, "location", location, HpackIndexing::kIncremental);
    e.field(out, "content-encoding", "gzip", HpackIndexing::kIncremental);
    e.field(out, "set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1", HpackIndexing::kIncremental);
    EXPECT_EQ(out, unhex("88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 "
                         "821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed "
                         "4ee5 b106 3d50 07"));
    EXPECT_EQ(e.table().size(), 215u);
}

struct FieldCase {
    std::string_view name;
    std::string_view value;
    HpackIndexing how;
    std::string_view hex;
    std::size_t table_count;
};

// One field on a fresh encoder (4096).
constexpr FieldCase kFields[] = {
    {"accept-encoding", "gzip, deflate", HpackIndexing::kIncremental, "90", 0},
    {"accept-encoding", "gzip, deflate", HpackIndexing::kWithout, "90", 0},
    {"accept-encoding", "gzip, deflate", HpackIndexing::kNever, "1f 01 8a 9bd9 abfa 5242 cb40 d25f", 0},
    {"age", "", HpackIndexing::kWithout, "95", 0},
    {"age", "1", HpackIndexing::kWithout, "0f 06 01 31", 0},
    {"age", "1", HpackIndexing::kIncremental, "55 01 31", 1},
    {"set-cookie", "a", HpackIndexing::kNever, "1f 28 01 61", 0},
    {"x", "y", HpackIndexing::kWithout, "00 01 78 01 79", 0},
    {"x", "y", HpackIndexing::kNever, "10 01 78 01 79", 0},
    {"x", "y", HpackIndexing::kIncremental, "40 01 78 01 79", 1},
    {"content-type", "application/json", HpackIndexing::kIncremental, "5f 8b 1d75 d062 0d26 3d4c 7441 ea", 1},
};

TEST(HpackEncoder, SingleFields) {
    for (const FieldCase& c : kFields) {
        HpackEncoder e;
        std::string out;
        e.begin_block(out);
        e.field(out, c.name, c.value, c.how);
        EXPECT_EQ(out, unhex(c.hex)) << c.name << ": " << c.value << " " << static_cast<int>(c.how);
        EXPECT_EQ(e.table().count(), c.table_count) << c.name;
    }
}

TEST(HpackEncoder, DynamicMatches) {
    HpackEncoder e;
    std::string out;
    e.field(out, "x-request-id", "abc", HpackIndexing::kIncremental);   // entry 62
    e.field(out, "server", "slipstream", HpackIndexing::kIncremental);  // now 62; x-request-id 63
    out.clear();
    e.field(out, "server", "slipstream", HpackIndexing::kWithout);
    e.field(out, "x-request-id", "abc", HpackIndexing::kIncremental);
    e.field(out, "x-request-id", "def", HpackIndexing::kNever);  // name from entry 63
    e.field(out, "server", "other", HpackIndexing::kWithout);    // static name 54
    EXPECT_EQ(out, unhex("be bf 1f 30 03 646566 0f 27 84 3a67 2d9f"));
    EXPECT_EQ(e.table().count(), 2u);
}

TEST(HpackEncoder, RawCodingKeepsTheValueBytes) {
    HpackEncoder e;
    std::string out;
    const std::string id = "0123456789abcdef0123456789abcdef";  // Huffman would take 22 bytes
    e.field(out, "x-request-id", id, HpackIndexing::kNever, HpackCoding::kRaw);
    EXPECT_EQ(out, unhex("10 89 f2b585ed6950958d27 20") + id);  // never indexed, name Huffman-coded, value raw
    out.clear();
    e.field(out, "server", "slipstream", HpackIndexing::kWithout, HpackCoding::kRaw);  // static name 54
    EXPECT_EQ(out, unhex("0f 27 0a") + "slipstream");
    out.clear();
    e.field(out, ":status", "200", HpackIndexing::kIncremental, HpackCoding::kRaw);  // an exact match stays one
    EXPECT_EQ(out, unhex("88"));
}

TEST(HpackEncoder, FieldLargerThanTheTableGoesWithoutIndexing) {
    HpackEncoder e;
    std::string out;
    e.field(out, "a", "b", HpackIndexing::kIncremental);
    out.clear();
    std::string big(4096 - 32, 'x');  // 1 + 4064 + 32 = 4097
    e.field(out, "a", big, HpackIndexing::kIncremental);
    EXPECT_EQ(static_cast<unsigned char>(out[0]), 0x0fu);  // without indexing, name index 62 = 15 + 47
    EXPECT_EQ(static_cast<unsigned char>(out[1]), 47u);
    EXPECT_EQ(e.table().count(), 1u);
    big.pop_back();  // exactly 4096: fits, evicting "a: b"
    out.clear();
    e.field(out, "a", big, HpackIndexing::kIncremental);
    EXPECT_EQ(static_cast<unsigned char>(out[0]), 0x7eu);
    EXPECT_EQ(e.table().count(), 1u);
    EXPECT_EQ(e.table().size(), 4096u);
}

struct UpdateCase {
    std::string_view name;
    std::uint32_t cap;
    std::vector<std::uint32_t> settings;  // peer SETTINGS_HEADER_TABLE_SIZE values before the block
    std::string_view hex;                 // begin_block's output
    std::uint32_t capacity;
};

TEST(HpackEncoder, SizeUpdates) {
    const UpdateCase cases[] = {
        {"nothing pending", 4096, {}, "", 4096},
        {"same size", 4096, {4096}, "", 4096},
        {"larger than the cap", 4096, {65536}, "", 4096},
        {"smaller", 4096, {100}, "3f 45", 100},
        {"zero", 4096, {0}, "20", 0},
        {"down then back up", 4096, {0, 4096}, "20 3f e1 1f", 4096},
        {"down twice", 4096, {700, 500}, "3f d5 03", 500},
        {"dips, ends between", 4096, {500, 4096, 700}, "3f d5 03 3f 9d 05", 700},
        {"cap below 4096 announced", 1000, {}, "3f c9 07", 1000},
        {"cap below 4096, peer larger", 1000, {8192}, "3f c9 07", 1000},
        {"cap below 4096, peer smaller", 1000, {500}, "3f d5 03", 500},
        {"cap 0", 0, {}, "20", 0},
        {"cap above 4096, peer larger", 8192, {16384}, "3f e1 3f", 8192},
    };
    for (const UpdateCase& c : cases) {
        HpackEncoder e(c.cap);
        for (std::uint32_t s : c.settings)
            e.set_peer_table_size(s);
        std::string out;
        e.begin_block(out);
        EXPECT_EQ(out, unhex(c.hex)) << c.name;
        EXPECT_EQ(e.table().capacity(), c.capacity) << c.name;
        out.clear();
        e.begin_block(out);
        EXPECT_EQ(out, "") << c.name << ": only once";
    }
}

TEST(HpackEncoder, ShrinkingEvictsBeforeTheNextBlock) {
    HpackEncoder e;
    HpackDecoder d;
    std::string out;
    CollectFields sink;
    e.begin_block(out);
    e.field(out, "a", "1", HpackIndexing::kIncremental);
    e.field(out, "b", "2", HpackIndexing::kIncremental);
    ASSERT_EQ(d.decode(out, sink), HpackStatus::kOk);
    e.set_peer_table_size(34);
    e.set_peer_table_size(4096);  // the smallest (34) keeps only "b: 2" on both sides
    out.clear();
    e.begin_block(out);
    e.field(out, "b", "2", HpackIndexing::kWithout);
    e.field(out, "a", "1", HpackIndexing::kWithout);
    EXPECT_EQ(out, unhex("3f 03 3f e1 1f be 00 01 61 01 31"));
    ASSERT_EQ(d.decode(out, sink), HpackStatus::kOk);
    EXPECT_EQ(sink.fields, (Fields{{"a", "1"}, {"b", "2"}, {"b", "2"}, {"a", "1"}}));
}

// Random responses through our encoder and our decoder: same fields, same tables.
TEST(HpackEncoder, RoundTripsThroughOurDecoder) {
    std::mt19937 rng(9113);
    HpackEncoder e;
    HpackDecoder d;
    const std::string_view names[] = {"content-type", "date", "server", "x-request-id", "set-cookie", "x-a", "etag"};
    for (int block = 0; block < 2000; ++block) {
        std::string out;
        Fields expected;
        if (rng() % 50 == 0) e.set_peer_table_size(rng() % 5000);
        e.begin_block(out);
        int code = 100 + static_cast<int>(rng() % 500);
        e.status(out, code);
        expected.emplace_back(":status", std::to_string(code));
        for (int i = 0, n = static_cast<int>(rng() % 8); i < n; ++i) {
            std::string name(names[rng() % std::size(names)]);
            std::string value(rng() % 10 == 0 ? rng() % 300 : rng() % 12, '\0');
            for (char& c : value)
                c = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 'a' + rng() % 4);
            e.field(out, name, value, static_cast<HpackIndexing>(rng() % 3));
            expected.emplace_back(name, value);
        }
        CollectFields sink;
        ASSERT_EQ(d.decode(out, sink), HpackStatus::kOk) << block;
        ASSERT_EQ(sink.fields, expected) << block;
        ASSERT_EQ(d.table().count(), e.table().count()) << block;
        ASSERT_EQ(d.table().size(), e.table().size()) << block;
        for (std::size_t i = 0; i < d.table().count(); ++i) {
            ASSERT_EQ(d.table().name(i), e.table().name(i));
            ASSERT_EQ(d.table().value(i), e.table().value(i));
        }
    }
}

}  // namespace
}  // namespace slipstream::http::h2
