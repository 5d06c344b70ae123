// Tests: the HPACK static table's entries and its name lookup.
#include "http/h2/hpack/hpack_static_table.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::http::h2 {
namespace {

TEST(HpackStaticTable, SpotEntries) {
    EXPECT_EQ(hpack_static_entry(1).name, ":authority");
    EXPECT_EQ(hpack_static_entry(2).value, "GET");
    EXPECT_EQ(hpack_static_entry(8).value, "200");
    EXPECT_EQ(hpack_static_entry(16).value, "gzip, deflate");
    EXPECT_EQ(hpack_static_entry(31).name, "content-type");
    EXPECT_EQ(hpack_static_entry(61).name, "www-authenticate");
}

TEST(HpackStaticTable, EveryNameFindsItsFirstEntryAndCount) {
    for (std::size_t i = 1; i <= kHpackStaticTableSize; ++i) {
        std::string_view name = hpack_static_entry(i).name;
        HpackStaticName found = hpack_static_find_name(name);
        ASSERT_NE(found.first, 0) << name;
        EXPECT_LE(found.first, i) << name;
        EXPECT_GT(found.first + found.count, i) << name;
        EXPECT_EQ(hpack_static_entry(found.first).name, name);
        if (found.first > 1) {
            EXPECT_NE(hpack_static_entry(found.first - 1).name, name);
        }
        EXPECT_EQ(hpack_static_find(name, hpack_static_entry(i).value), i) << name;
    }
    EXPECT_EQ(hpack_static_find_name(":status").count, 7);
    EXPECT_EQ(hpack_static_find_name(":method").count, 2);
}

TEST(HpackStaticTable, UnknownNamesAndValues) {
    for (std::string_view name : {"", "x-request-id", "content-typ", "content-types", "Content-Type", ":statu", "a"}) {
        EXPECT_EQ(hpack_static_find_name(name).first, 0) << name;
        EXPECT_EQ(hpack_static_find_name(name).count, 0) << name;
    }
    EXPECT_EQ(hpack_static_find(":status", "201"), 0u);
    EXPECT_EQ(hpack_static_find(":status", "404"), 13u);
    EXPECT_EQ(hpack_static_find("content-type", "text/html"), 0u);
    EXPECT_EQ(hpack_static_find("content-type", ""), 31u);
}

}  // namespace
}  // namespace slipstream::http::h2
