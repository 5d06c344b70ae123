// Tests: the HPACK decoder on RFC 7541 Appendix C (C.2-C.6) and on each malformed-block case.
#include "http/h2/hpack/hpack_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "http/h2/hpack/hpack_test_sinks.h"

namespace slipstream::http::h2 {
namespace {

using hpack_test::CollectFields;
using hpack_test::Fields;
using hpack_test::unhex;

Fields table_of(const HpackDecoder& d) {
    Fields t;
    for (std::size_t i = 0; i < d.table().count(); ++i)
        t.emplace_back(d.table().name(i), d.table().value(i));
    return t;
}

struct Step {
    std::string_view hex;
    Fields fields;
    Fields table;  // newest first
    std::size_t table_size;
};

void run_steps(std::uint32_t table_size, const std::vector<Step>& steps) {
    HpackDecoder d(table_size);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        CollectFields sink;
        ASSERT_EQ(d.decode(unhex(steps[i].hex), sink), HpackStatus::kOk) << "block " << i;
        EXPECT_EQ(sink.fields, steps[i].fields) << "block " << i;
        EXPECT_EQ(table_of(d), steps[i].table) << "block " << i;
        EXPECT_EQ(d.table().size(), steps[i].table_size) << "block " << i;
    }
}

TEST(HpackDecoder, RfcC2SingleRepresentations) {
    run_steps(4096, {{"400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
                      {{"custom-key", "custom-header"}},
                      {{"custom-key", "custom-header"}},
                      55}});
    run_steps(4096, {{"040c 2f73 616d 706c 652f 7061 7468", {{":path", "/sample/path"}}, {}, 0}});
    run_steps(4096, {{"1008 7061 7373 776f 7264 0673 6563 7265 74", {{"password", "secret"}}, {}, 0}});
    run_steps(4096, {{"82", {{":method", "GET"}}, {}, 0}});
}

const Fields kC3First = {{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "www.example.com"}};
const Fields kC3Second = {{":method", "GET"},
                          {":scheme", "http"},
                          {":path", "/"},
                          {":authority", "www.example.com"},
                          {"cache-control", "no-cache"}};
const Fields kC3Third = {{":method", "GET"},
                         {":scheme", "https"},
                         {":path", "/index.html"},
                         {":authority", "www.example.com"},
                         {"custom-key", "custom-value"}};
const Fields kC3Table1 = {{":authority", "www.example.com"}};
const Fields kC3Table2 = {{"cache-control", "no-cache"}, {":authority", "www.example.com"}};
const Fields kC3Table3 = {
    {"custom-key", "custom-value"}, {"cache-control", "no-cache"}, {":authority", "www.example.com"}};

TEST(HpackDecoder, RfcC3RequestsWithoutHuffman) {
    run_steps(4096,
              {{"8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", kC3First, kC3Table1, 57},
               {"8286 84be 5808 6e6f 2d63 6163 6865", kC3Second, kC3Table2, 110},
               {"8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65", kC3Third, kC3Table3, 164}});
}

TEST(HpackDecoder, RfcC4RequestsWithHuffman) {
    run_steps(4096, {{"8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", kC3First, kC3Table1, 57},
                     {"8286 84be 5886 a8eb 1064 9cbf", kC3Second, kC3Table2, 110},
                     {"8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf", kC3Third, kC3Table3, 164}});
}

const std::string kDate1 = "Mon, 21 Oct 2013 20:13:21 GMT";
const std::string kDate2 = "Mon, 21 Oct 2013 20:13:22 GMT";
const std::string kLocation = "https://www.example.com";
const std::string kCookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";

std::vector<Step> c5_steps(std::string_view hex1, std::string_view hex2, std::string_view hex3) {
    return {
        {hex1,
         {{":status", "302"}, {"cache-control", "private"}, {"date", kDate1}, {"location", kLocation}},
         {{"location", kLocation}, {"date", kDate1}, {"cache-control", "private"}, {":status", "302"}},
         222},
        {hex2,
         {{":status", "307"}, {"cache-control", "private"}, {"date", kDate1}, {"location", kLocation}},
         {{":status", "307"}, {"location", kLocation}, {"date", kDate1}, {"cache-control", "private"}},
         222},
        {hex3,
         {{":status", "200"},
          {"cache-control", "private"},
          {"date", kDate2},
          {"location", kLocation},
          {"content-encoding", "gzip"},
          {"set-cookie", kCookie}},
         {{"set-cookie", kCookie}, {"content-encoding", "gzip"}, {"date", kDate2}},
         215},
    };
}

TEST(HpackDecoder, RfcC5ResponsesWithoutHuffman) {
    run_steps(256, c5_steps("4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 "
                            "303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 "
                            "6f6d",
                            "4803 3330 37c1 c0bf",
                            "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 "
                            "5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 "
                            "5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31"));
}

TEST(HpackDecoder, RfcC6ResponsesWithHuffman) {
    run_steps(256, c5_steps("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b "
                            "ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
                            "4883 640e ffc1 c0bf",
                            "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad "
                            "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 "
                            "65c0 03ed 4ee5 b106 3d50 07"));
}

struct BadCase {
    std::string_view name;
    std::string_view hex;
};

// Each is a COMPRESSION_ERROR for a decoder with a 4096-byte table, fresh (empty dynamic table).
constexpr BadCase kBadBlocks[] = {
    {"indexed field with index 0", "80"},
    {"indexed field past the static table, empty dynamic table", "be"},
    {"indexed field far past the tables", "ff 80 01"},
    {"integer truncated after its prefix", "ff"},
    {"integer truncated in a continuation", "ff 80"},
    {"integer past 2^32 - 1", "ff ff ff ff ff 7f"},
    {"integer of 2^32 exactly", "3f e1 ff ff ff 0f"},
    {"integer with six continuation bytes", "3f 80 80 80 80 80 00"},
    {"literal (incremental) with nothing after it", "40"},
    {"literal name length past the block", "40 05 61 62"},
    {"literal without its value", "40 01 61"},
    {"literal value length past the block", "40 01 61 05 41"},
    {"literal value length truncated", "40 01 61 7f"},
    {"literal value length overflowing", "00 01 61 7f ff ff ff ff 7f"},
    {"literal (incremental) name index past the tables", "7e"},
    {"literal (without) name index past the tables", "0f 2f 01 61"},
    {"literal (never) name index past the tables", "1f 2f 01 61"},
    {"literal (incremental) name index 62 of an empty table", "7e 01 61"},
    {"literal (indexed name) without its value", "4f"},
    {"Huffman name with 8 bits of padding", "40 81 ff 01 61"},
    {"Huffman value with 8 bits of padding", "40 01 61 81 ff"},
    {"Huffman value holding EOS", "00 01 61 84 ff ff ff ff"},
    {"Huffman value with padding not all ones", "00 01 61 81 18"},
    {"size update after a field", "82 20"},
    {"size update between fields", "20 82 20 82"},
    {"size update above the limit (4097)", "3f e2 1f"},
    {"size update truncated", "3f"},
    {"good field then a truncated one", "82 0f"},
};

TEST(HpackDecoder, MalformedBlocksAreCompressionErrors) {
    for (const BadCase& c : kBadBlocks) {
        HpackDecoder d;
        CollectFields sink;
        EXPECT_EQ(d.decode(unhex(c.hex), sink), HpackStatus::kCompressionError) << c.name;
    }
}

TEST(HpackDecoder, IntegerLimits) {
    CollectFields sink;
    HpackDecoder wide(0xffffffffu);
    EXPECT_EQ(wide.decode(unhex("3f e0 ff ff ff 0f"), sink), HpackStatus::kOk);  // 2^32 - 1
    EXPECT_EQ(wide.table().capacity(), 0xffffffffu);
    EXPECT_EQ(wide.decode(unhex("3f e1 ff ff ff 0f"), sink), HpackStatus::kCompressionError);  // 2^32
    HpackDecoder d;
    EXPECT_EQ(d.decode(unhex("3f 80 80 80 80 00"), sink), HpackStatus::kOk);  // 31 with five continuation bytes
    EXPECT_EQ(d.table().capacity(), 31u);
    EXPECT_TRUE(sink.fields.empty());
}

TEST(HpackDecoder, SizeUpdatesAtTheStart) {
    HpackDecoder d;
    CollectFields sink;
    ASSERT_EQ(d.decode(unhex("40 01 61 01 62"), sink), HpackStatus::kOk);
    EXPECT_EQ(d.table().count(), 1u);
    // Two updates (0 then 4096) empty the table, then a field; exactly the limit is allowed.
    ASSERT_EQ(d.decode(unhex("20 3f e1 1f 82"), sink), HpackStatus::kOk);
    EXPECT_EQ(d.table().count(), 0u);
    EXPECT_EQ(d.table().capacity(), 4096u);
    // A size update alone is a whole block.
    ASSERT_EQ(d.decode(unhex("3f 11"), sink), HpackStatus::kOk);
    EXPECT_EQ(d.table().capacity(), 48u);
    ASSERT_EQ(d.decode(unhex("40 01 61 01 62 40 01 63 01 64"), sink), HpackStatus::kOk);  // 34 each: one fits
    EXPECT_EQ(table_of(d), (Fields{{"c", "d"}}));
    EXPECT_EQ(sink.fields, (Fields{{"a", "b"}, {":method", "GET"}, {"a", "b"}, {"c", "d"}}));
}

TEST(HpackDecoder, EmptyBlock) {
    HpackDecoder d;
    CollectFields sink;
    EXPECT_EQ(d.decode("", sink), HpackStatus::kOk);
    EXPECT_TRUE(sink.fields.empty());
}

TEST(HpackDecoder, SinkStopsDecoding) {
    HpackDecoder d;
    CollectFields sink(2);
    EXPECT_EQ(d.decode(unhex("82 86 84 ff"), sink), HpackStatus::kStopped);
    EXPECT_EQ(sink.fields, (Fields{{":method", "GET"}, {":scheme", "http"}}));
}

TEST(HpackDecoder, FieldLargerThanTheTableEmptiesItAndIsStillDelivered) {
    HpackDecoder d(64);
    CollectFields sink;
    ASSERT_EQ(d.decode(unhex("40 01 61 01 62"), sink), HpackStatus::kOk);
    ASSERT_EQ(d.decode(unhex("40 01 63 1f") + std::string(31, 'x'), sink), HpackStatus::kOk);  // 1 + 31 + 32 = 64
    EXPECT_EQ(d.table().count(), 1u);
    ASSERT_EQ(d.decode(unhex("7e 20") + std::string(32, 'y'), sink), HpackStatus::kOk);  // name from entry 62: 65
    EXPECT_EQ(d.table().count(), 0u);
    EXPECT_EQ(d.table().size(), 0u);
    EXPECT_EQ(sink.fields.back(), (std::pair<std::string, std::string>{"c", std::string(32, 'y')}));
}

TEST(HpackDecoder, NameFromAnEntryTheInsertEvicts) {
    HpackDecoder d(80);
    CollectFields sink;
    ASSERT_EQ(d.decode(unhex("40 0a 6669 7273 742d 6e61 6d65 02 7631"), sink), HpackStatus::kOk);  // 44
    ASSERT_EQ(d.decode(unhex("7e 03 763232"), sink), HpackStatus::kOk);  // first-name: v22 (45) evicts it
    EXPECT_EQ(sink.fields.back(), (std::pair<std::string, std::string>{"first-name", "v22"}));
    EXPECT_EQ(table_of(d), (Fields{{"first-name", "v22"}}));
    EXPECT_EQ(d.table().size(), 45u);
}

TEST(HpackDecoder, NeverIndexedAndWithoutIndexingLeaveTheTable) {
    HpackDecoder d;
    CollectFields sink;
    ASSERT_EQ(d.decode(unhex("10 01 61 01 62 00 01 63 01 64 1f 12 01 65 0f 1f 01 66"), sink), HpackStatus::kOk);
    EXPECT_EQ(sink.fields, (Fields{{"a", "b"}, {"c", "d"}, {"date", "e"}, {"location", "f"}}));
    EXPECT_EQ(d.table().count(), 0u);
}

}  // namespace
}  // namespace slipstream::http::h2
