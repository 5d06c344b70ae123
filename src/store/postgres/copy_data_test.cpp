// COPY data helpers without a server: which statements are COPY FROM STDIN / TO STDOUT, the sources' chunking.
#include "store/postgres/copy_data.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::store::postgres {
namespace {

TEST(CopyDirectionTest, FindsStdinAndStdoutOnlyWhereTheyAreTheCopyEnds) {
    const struct {
        const char* sql;
        CopyDirection want;
    } cases[] = {
        {"COPY t FROM STDIN", CopyDirection::kIn},
        {"copy t (a, b) from stdin with (format csv)", CopyDirection::kIn},
        {"  /* a /* nested */ comment */ Copy t From Stdin", CopyDirection::kIn},
        {"-- leading comment\nCOPY t FROM -- here\n STDIN", CopyDirection::kIn},
        {"COPY \"stdin\" FROM STDIN", CopyDirection::kIn},
        {"COPY t TO STDOUT", CopyDirection::kOut},
        {"COPY (SELECT * FROM stdin) TO STDOUT (FORMAT binary)", CopyDirection::kOut},
        {"COPY (SELECT 'FROM STDIN') TO STDOUT", CopyDirection::kOut},
        {"COPY t FROM '/tmp/stdin'", CopyDirection::kNone},
        {"COPY stdin FROM '/srv/data.csv'", CopyDirection::kNone},
        {"COPY t TO PROGRAM 'cat > /dev/null'", CopyDirection::kNone},
        {"COPY t FROM E'\\' FROM STDIN'", CopyDirection::kNone},
        {"COPY t FROM $q$ FROM STDIN $q$", CopyDirection::kNone},
        {"SELECT 'COPY t FROM STDIN'", CopyDirection::kNone},
        {"-- COPY t FROM STDIN\nSELECT 1", CopyDirection::kNone},
        {"WITH x AS (SELECT 1) SELECT * FROM x", CopyDirection::kNone},
        {"COPYT FROM STDIN", CopyDirection::kNone},
        {"(COPY t FROM STDIN)", CopyDirection::kNone},
        {"", CopyDirection::kNone},
        {"COPY", CopyDirection::kNone},
        {"COPY t FROM 'unterminated", CopyDirection::kNone},
    };
    for (const auto& c : cases)
        EXPECT_EQ(copy_direction(c.sql), c.want) << c.sql;
}

TEST(CopySourceTest, RowSourcesChunkAndEnd) {
    std::vector<std::vector<Value>> rows;
    std::string whole;
    for (std::int64_t i = 0; i < 100; ++i) {
        rows.push_back({i, std::string("row ") + std::to_string(i)});
        encode_copy_text_row(rows.back(), whole);
    }
    CopySource source = copy_rows(rows, 64);
    std::string joined;
    std::string chunk;
    int pieces = 0;
    for (;;) {
        chunk.clear();
        ASSERT_TRUE(source(chunk).is_ok());
        if (chunk.empty()) break;
        EXPECT_LT(chunk.size(), 64u + 16u);  // the chunk bound plus at most one row
        joined += chunk;
        ++pieces;
    }
    EXPECT_EQ(joined, whole);
    EXPECT_GT(pieces, 10);
    chunk.clear();
    ASSERT_TRUE(source(chunk).is_ok());
    EXPECT_TRUE(chunk.empty());

    int asked = 0;
    CopySource gen = copy_rows_from([&asked](std::vector<Value>& row) {
        ++asked;
        if (asked > 3) return false;
        row = {std::int64_t{asked}};
        return true;
    });
    chunk.clear();
    ASSERT_TRUE(gen(chunk).is_ok());
    EXPECT_EQ(chunk, "1\n2\n3\n");
    chunk.clear();
    ASSERT_TRUE(gen(chunk).is_ok());
    EXPECT_TRUE(chunk.empty());
    EXPECT_EQ(asked, 4);  // not asked again after saying there are no more rows
}

TEST(CopySourceTest, BytesSourceSlicesAndEnds) {
    CopySource source = copy_bytes("1\ta\n2\tb\n", 4);
    std::string piece, all;
    for (;;) {
        piece.clear();
        ASSERT_TRUE(source(piece).is_ok());
        if (piece.empty()) break;
        EXPECT_LE(piece.size(), 4u);
        all += piece;
    }
    EXPECT_EQ(all, "1\ta\n2\tb\n");
    piece.clear();
    ASSERT_TRUE(source(piece).is_ok());  // ended stays ended
    EXPECT_TRUE(piece.empty());
}

}  // namespace
}  // namespace slipstream::store::postgres
