// Pure parts of the PostgreSQL client: OIDs to kinds, bytea decoding, parameter encoding (no server needed).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "store/postgres/pg_params.h"
#include "store/postgres/pg_result.h"

namespace slipstream::store::postgres {
namespace {

TEST(PgResult, OidKinds) {
    const std::pair<Oid, ColumnType> cases[] = {
        {16, ColumnType::kBool},        {17, ColumnType::kBytes},         {20, ColumnType::kInt},
        {21, ColumnType::kInt},         {23, ColumnType::kInt},           {700, ColumnType::kFloat},
        {701, ColumnType::kFloat},      {1700, ColumnType::kNumeric},     {25, ColumnType::kText},
        {1043, ColumnType::kText},      {2950, ColumnType::kUuid},        {1082, ColumnType::kDate},
        {1114, ColumnType::kTimestamp}, {1184, ColumnType::kTimestampTz}, {1186, ColumnType::kInterval},
        {114, ColumnType::kJson},       {3802, ColumnType::kJson},        {600, ColumnType::kText},  // point
    };
    for (auto [oid, kind] : cases)
        EXPECT_EQ(column_type_for_oid(oid), kind) << oid;
}

TEST(PgResult, ByteaHex) {
    std::string out;
    ASSERT_TRUE(decode_bytea_hex("\\x00ff10Ab", out));
    EXPECT_EQ(out, std::string("\x00\xff\x10\xab", 4));
    out.clear();
    ASSERT_TRUE(decode_bytea_hex("\\x", out));
    EXPECT_EQ(out, "");
    EXPECT_FALSE(decode_bytea_hex("\\x0", out));
    EXPECT_FALSE(decode_bytea_hex("\\xzz", out));
    EXPECT_FALSE(decode_bytea_hex("00", out));
}

TEST(PgParams, EncodesEachKind) {
    Params params = {std::monostate{},
                     true,
                     std::int64_t{-7},
                     0.1,
                     std::numeric_limits<double>::infinity(),
                     std::string("1.50"),
                     Bytes{std::string("\0a", 2)}};
    PgParams p(params);
    ASSERT_EQ(p.count(), 7);
    const char* const* v = p.values();
    EXPECT_EQ(v[0], nullptr);
    EXPECT_STREQ(v[1], "t");
    EXPECT_STREQ(v[2], "-7");
    EXPECT_STREQ(v[3], "0.1");
    EXPECT_STREQ(v[4], "Infinity");
    EXPECT_STREQ(v[5], "1.50");
    EXPECT_EQ(std::string(v[6], p.lengths()[6]), std::string("\0a", 2));
    const Oid want_types[] = {0, 16, 20, 701, 701, 0, 17};
    for (int i = 0; i < 7; ++i)
        EXPECT_EQ(p.types()[i], want_types[i]) << i;
    EXPECT_EQ(p.formats()[6], 1);
    EXPECT_EQ(p.formats()[5], 0);
    EXPECT_EQ(p.type_signature(), "0,16,20,701,701,0,17,");
}

}  // namespace
}  // namespace slipstream::store::postgres
