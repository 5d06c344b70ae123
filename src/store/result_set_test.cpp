// ResultSet and DbResult: cells read back as the Values their kinds promise; SQLSTATEs map to Status codes.
#include "store/result_set.h"

#include <gtest/gtest.h>

#include <cmath>

#include "store/db_result.h"

namespace slipstream::store {
namespace {

TEST(ResultSet, CellsReadBackTyped) {
    ResultSet rs;
    rs.add_column("b", ColumnType::kBool);
    rs.add_column("i", ColumnType::kInt, 20);
    rs.add_column("f", ColumnType::kFloat);
    rs.add_column("n", ColumnType::kNumeric);
    rs.add_column("x", ColumnType::kBytes);
    rs.append_cell(ColumnType::kBool, "t");
    rs.append_cell(ColumnType::kInt, "-9223372036854775808");
    rs.append_cell(ColumnType::kFloat, "-Infinity");
    rs.append_cell(ColumnType::kNumeric, "12345678901234567890.000001");
    rs.append_cell(ColumnType::kBytes, std::string_view("\0\xff", 2));
    for (int i = 0; i < 5; ++i)
        rs.append_null();

    ASSERT_EQ(rs.row_count(), 2u);
    EXPECT_EQ(rs.column_count(), 5u);
    EXPECT_EQ(rs.columns()[1].type_oid, 20u);
    EXPECT_EQ(rs.find_column("n"), 3);
    EXPECT_EQ(rs.find_column("zz"), -1);
    EXPECT_EQ(rs.value(0, 0), Value(true));
    EXPECT_EQ(rs.value(0, 1), Value(std::int64_t{INT64_MIN}));
    double f = std::get<double>(rs.value(0, 2));
    EXPECT_TRUE(std::isinf(f) && f < 0);
    EXPECT_EQ(rs.value(0, 3), Value(std::string("12345678901234567890.000001")));
    EXPECT_EQ(rs.value(0, 4), Value(Bytes{std::string("\0\xff", 2)}));
    for (std::size_t c = 0; c < 5; ++c) {
        EXPECT_TRUE(rs.is_null(1, c));
        EXPECT_EQ(rs.value(1, c), Value(std::monostate{}));
        EXPECT_EQ(rs.text(1, c), "");
    }
}

TEST(ResultSet, IntegerTooLargeStaysText) {
    ResultSet rs;
    rs.add_column("i", ColumnType::kInt);
    rs.append_cell(ColumnType::kInt, "99999999999999999999");
    EXPECT_EQ(rs.value(0, 0), Value(std::string("99999999999999999999")));
}

TEST(DbResult, SqlstateMapsToStatusCode) {
    struct Case {
        const char* sqlstate;
        base::StatusCode code;
    };
    const Case cases[] = {
        {"23505", base::StatusCode::kAlreadyExists},   {"23503", base::StatusCode::kInvalidArgument},
        {"42601", base::StatusCode::kInvalidArgument}, {"22P02", base::StatusCode::kInvalidArgument},
        {"57014", base::StatusCode::kCancelled},       {"57P01", base::StatusCode::kUnavailable},
        {"08006", base::StatusCode::kUnavailable},     {"40001", base::StatusCode::kUnavailable},
        {"40P01", base::StatusCode::kUnavailable},     {"53300", base::StatusCode::kResourceExhausted},
        {"XX000", base::StatusCode::kInternal},        {"", base::StatusCode::kInternal},
    };
    for (const Case& c : cases)
        EXPECT_EQ(status_code_for_sqlstate(c.sqlstate), c.code) << c.sqlstate;
}

TEST(DbResult, ErrorCarriesDetails) {
    DbError e{"42P01", "relation \"nope\" does not exist", "", "", 15, 0, false};
    QueryResult r(status_for_error(e), e);
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.status().is_invalid_argument());
    EXPECT_EQ(r.status().message(), "relation \"nope\" does not exist (SQLSTATE 42P01)");
    EXPECT_EQ(r.error().position, 15);
    QueryResult ok(ResultSet{});
    EXPECT_TRUE(ok.is_ok());
    EXPECT_EQ(ok.error().sqlstate, "");
}

}  // namespace
}  // namespace slipstream::store
