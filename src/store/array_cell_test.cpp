// Array cells without a server: tokens written and walked back, their JSON, and malformed cells refused.
#include "store/array_cell.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::store {
namespace {

struct Trace final : ArrayCellVisitor {
    std::string seen;
    base::Status begin() override { return seen += "{", base::Status::ok(); }
    base::Status end() override { return seen += "}", base::Status::ok(); }
    base::Status null() override { return seen += "N;", base::Status::ok(); }
    base::Status element(std::string_view b) override {
        return seen += "<" + std::string(b) + ">;", base::Status::ok();
    }
};

TEST(ArrayCellTest, WrittenTokensWalkBackInOrder) {
    std::string cell;
    ArrayCellWriter w(cell);
    w.begin();
    w.begin();
    w.element("1");
    w.null();
    w.end();
    w.begin();
    w.element(std::string("a\0]b", 4));  // any bytes, the tag characters included
    w.element("");
    w.end();
    w.end();
    Trace t;
    ASSERT_TRUE(read_array_cell(cell, t).is_ok());
    EXPECT_EQ(t.seen, std::string("{{<1>;N;}{<a\0]b>;<>;}}", 22));
}

TEST(ArrayCellTest, JsonUsesTheElementKind) {
    std::string cell;
    ArrayCellWriter w(cell);
    w.begin();
    w.element("1.50");
    w.null();
    w.end();
    std::string out;
    json::Writer jw(out);
    ASSERT_TRUE(write_array_cell_json(jw, cell, ColumnType::kNumeric).is_ok());
    EXPECT_EQ(out, "[\"1.50\",null]");
    out.clear();
    json::Writer iw(out);
    ASSERT_TRUE(write_array_cell_json(iw, cell, ColumnType::kText).is_ok());
    EXPECT_EQ(out, "[\"1.50\",null]");
}

TEST(ArrayCellTest, MalformedCellsAreRefused) {
    for (const std::string& bad :
         {std::string(), std::string("["), std::string("]"), std::string("N"), std::string("[]["),
          std::string("[E\x05\0\0\0ab]", 9), std::string("[X]"), std::string("[[[[[[[]]]]]]]")}) {
        Trace t;
        EXPECT_FALSE(read_array_cell(bad, t).is_ok()) << bad;
    }
    struct Stop final : ArrayCellVisitor {
        base::Status begin() override { return base::Status::ok(); }
        base::Status end() override { return base::Status::ok(); }
        base::Status null() override { return base::Status::cancelled("stop"); }
        base::Status element(std::string_view) override { return base::Status::ok(); }
    } stopper;
    EXPECT_TRUE(read_array_cell("[N]", stopper).is_cancelled());
}

}  // namespace
}  // namespace slipstream::store
