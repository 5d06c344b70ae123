// Session (synchronous SQLite): types both ways, NULLs, parameters vs injection, typed errors, JSON rows.
#include "store/sqlite/session.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <limits>

#include "store/sqlite/sqlite_test_support.h"

namespace slipstream::store::sqlite {
namespace {

class SessionTest : public ::testing::Test {
  protected:
    void SetUp() override {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(dir_.file("t.db").c_str(), &db), SQLITE_OK);
        sqlite3_extended_result_codes(db, 1);
        session_ = std::make_unique<Session>(db);
        ASSERT_TRUE(session_
                        ->execute_script("CREATE TABLE t (i INTEGER, f REAL, s TEXT, b BLOB, ok BOOLEAN, j JSON);"
                                         "CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);")
                        .is_ok());
    }

    testing::TempDir dir_;
    std::unique_ptr<Session> session_;
};

TEST_F(SessionTest, TypesBothWaysAndNulls) {
    const Params row = {std::int64_t{INT64_MIN},         0.1,  std::string("h\u00e9 \"q\""),
                        Bytes{std::string("\0\xff", 2)}, true, std::string("{\"a\": [1, 2]}")};
    QueryResult ins = session_->query("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6)", row);
    ASSERT_TRUE(ins.is_ok()) << ins.status().to_string();
    EXPECT_EQ(ins->affected_rows(), 1);
    ASSERT_TRUE(session_->query("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", Params(6, std::monostate{})).is_ok());
    ASSERT_TRUE(session_
                    ->query("INSERT INTO t (i, f, ok) VALUES (?, ?, ?)",
                            {std::int64_t{7}, -std::numeric_limits<double>::infinity(), false})
                    .is_ok());

    QueryResult r = session_->query("SELECT * FROM t ORDER BY rowid", {});
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    ASSERT_EQ(r->row_count(), 3u);
    const ColumnType kinds[] = {ColumnType::kInt,   ColumnType::kFloat, ColumnType::kText,
                                ColumnType::kBytes, ColumnType::kBool,  ColumnType::kJson};
    for (std::size_t c = 0; c < 6; ++c) {
        EXPECT_EQ(r->columns()[c].type, kinds[c]) << c;
        EXPECT_EQ(r->type(0, c), kinds[c]) << c;
        EXPECT_EQ(r->value(0, c), c == 5 ? Value(std::string("{\"a\": [1, 2]}")) : row[c]) << c;
        EXPECT_TRUE(r->is_null(1, c));
    }
    EXPECT_EQ(r->value(2, 0), Value(std::int64_t{7}));
    EXPECT_EQ(r->text(2, 1), "-Infinity");
    EXPECT_EQ(r->value(2, 4), Value(false));
    QueryResult expr = session_->query("SELECT 1 + 1 AS two, NULL AS n", {});
    ASSERT_TRUE(expr.is_ok());
    EXPECT_EQ(expr->columns()[0].type, ColumnType::kNull);  // an expression has no declared kind
    EXPECT_EQ(expr->type(0, 0), ColumnType::kInt);
    EXPECT_EQ(expr->value(0, 0), Value(std::int64_t{2}));
}

TEST_F(SessionTest, FetchJson) {
    ASSERT_TRUE(
        session_
            ->query("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", {std::int64_t{1}, 2.5, std::string("x\ny"), Bytes{"foo"},
                                                                true, std::string("{\"k\": [true, null]}")})
            .is_ok());
    ASSERT_TRUE(session_->query("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", Params(6, std::monostate{})).is_ok());
    JsonResult j = session_->fetch_json("SELECT * FROM t ORDER BY rowid", {});
    ASSERT_TRUE(j.is_ok()) << j.status().to_string();
    EXPECT_EQ(j.value(),
              "[{\"i\":1,\"f\":2.5,\"s\":\"x\\ny\",\"b\":\"Zm9v\",\"ok\":true,\"j\":{\"k\":[true,null]}},"
              "{\"i\":null,\"f\":null,\"s\":null,\"b\":null,\"ok\":null,\"j\":null}]");
    JsonResult none = session_->fetch_json("SELECT * FROM t WHERE i = ?", {std::int64_t{99}});
    ASSERT_TRUE(none.is_ok());
    EXPECT_EQ(none.value(), "[]");
}

TEST_F(SessionTest, ParametersCannotChangeTheStatement) {
    const std::string attacks[] = {"x'); DROP TABLE u; --", "' OR '1'='1", "?1", "\"; DELETE FROM u; --"};
    std::int64_t id = 0;
    for (const std::string& a : attacks) {
        ASSERT_TRUE(session_->query("INSERT INTO u VALUES (?, ?)", {++id, a}).is_ok());
    }
    for (const std::string& a : attacks) {
        QueryResult r = session_->query("SELECT name FROM u WHERE name = ?", {a});
        ASSERT_TRUE(r.is_ok());
        ASSERT_EQ(r->row_count(), 1u) << a;
        EXPECT_EQ(r->value(0, 0), Value(a));
    }
    QueryResult count = session_->query("SELECT count(*) FROM u", {});
    ASSERT_TRUE(count.is_ok());
    EXPECT_EQ(count->value(0, 0), Value(std::int64_t{4}));
}

TEST_F(SessionTest, ErrorsAreTyped) {
    ASSERT_TRUE(session_->query("INSERT INTO u VALUES (1, 'a')", {}).is_ok());
    QueryResult dup = session_->query("INSERT INTO u VALUES (2, ?)", {std::string("a")});
    EXPECT_TRUE(dup.status().is_already_exists());
    EXPECT_EQ(dup.error().native_code, SQLITE_CONSTRAINT_UNIQUE);
    EXPECT_EQ(dup.error().message, "UNIQUE constraint failed: u.name");

    QueryResult missing = session_->query("SELECT x FROM nope", {});
    EXPECT_TRUE(missing.status().is_invalid_argument());
    EXPECT_EQ(missing.error().message, "no such table: nope");
    EXPECT_EQ(missing.error().position, 0);  // SQLite gives no offset for this one
    QueryResult column = session_->query("SELECT nocol FROM u", {});
    EXPECT_EQ(column.error().message, "no such column: nocol");
    EXPECT_EQ(column.error().position, 8);
    QueryResult syntax = session_->query("SELEC 1", {});
    EXPECT_EQ(syntax.error().message, "near \"SELEC\": syntax error");
    EXPECT_EQ(syntax.error().position, 1);

    QueryResult nulls = session_->query("INSERT INTO u VALUES (3, NULL)", {});
    EXPECT_TRUE(nulls.status().is_invalid_argument());
    EXPECT_EQ(nulls.error().native_code, SQLITE_CONSTRAINT_NOTNULL);

    QueryResult two = session_->query("SELECT 1; SELECT 2", {});
    EXPECT_EQ(two.status().message(), "one statement per query (use execute_script for several)");
    EXPECT_EQ(two.error().position, 10);
    QueryResult arity = session_->query("SELECT ?", {});
    EXPECT_EQ(arity.status().message(), "the statement takes 1 parameters, 0 given");
    // Still usable, and a cached statement rebinds cleanly after an error.
    EXPECT_TRUE(session_->query("SELECT name FROM u WHERE id = ?", {std::int64_t{1}}).is_ok());
}

}  // namespace
}  // namespace slipstream::store::sqlite
