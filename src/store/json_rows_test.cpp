// write_cell_json: each column kind's JSON form, compaction of JSON text, and base64.
#include "store/json_rows.h"

#include <gtest/gtest.h>

namespace slipstream::store {
namespace {

std::string cell_json(ColumnType type, std::string_view bytes) {
    std::string out;
    json::Writer w(out);
    w.begin_array();
    w.int64(0);
    base::Status s = write_cell_json(w, type, bytes);
    if (!s.is_ok()) return "error: " + s.message();
    w.end_array();
    return out;
}

TEST(JsonRows, EachKind) {
    struct Case {
        ColumnType type;
        std::string_view bytes;
        std::string_view json;
    };
    const Case cases[] = {
        {ColumnType::kNull, "", "[0,null]"},
        {ColumnType::kBool, "t", "[0,true]"},
        {ColumnType::kBool, "f", "[0,false]"},
        {ColumnType::kInt, "-42", "[0,-42]"},
        {ColumnType::kFloat, "1e+16", "[0,1e+16]"},
        {ColumnType::kFloat, "0.1", "[0,0.1]"},
        {ColumnType::kFloat, "3", "[0,3.0]"},
        {ColumnType::kNumeric, "1.50", "[0,\"1.50\"]"},
        {ColumnType::kText, "a\"b\n", "[0,\"a\\\"b\\n\"]"},
        {ColumnType::kUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "[0,\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"]"},
        {ColumnType::kTimestampTz, "2024-01-02 03:04:05+00", "[0,\"2024-01-02 03:04:05+00\"]"},
        {ColumnType::kJson, "{\"a\": [1, 2], \"b c\": \"x \\\" y\"}", "[0,{\"a\":[1,2],\"b c\":\"x \\\" y\"}]"},
        {ColumnType::kBytes, std::string_view("\0\x01\xfe\xff", 4), "[0,\"AAH+/w==\"]"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(cell_json(c.type, c.bytes), c.json) << column_type_name(c.type);
}

TEST(JsonRows, NonFiniteFloatIsRefused) {
    EXPECT_EQ(cell_json(ColumnType::kFloat, "NaN"), "error: Out of range float values are not JSON compliant");
    EXPECT_EQ(cell_json(ColumnType::kFloat, "-Infinity"), "error: Out of range float values are not JSON compliant");
}

TEST(JsonRows, Base64Padding) {
    const std::pair<std::string_view, std::string_view> cases[] = {
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}};
    for (auto [in, want] : cases) {
        std::string out;
        append_base64(out, in);
        EXPECT_EQ(out, want) << in;
    }
}

}  // namespace
}  // namespace slipstream::store
