// The array literal parser without a server: a table of literals to JSON, malformed ones refused, and a seeded
// round trip of random nested arrays of hostile text (plus random bytes that must never crash it).
#include "store/postgres/pg_array.h"

#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <variant>
#include <vector>

namespace slipstream::store::postgres {
namespace {

base::Status to_json(std::string_view text, ColumnType element, std::string& out) {
    out.clear();
    json::Writer w(out);
    return write_array_json(w, text, element);
}

TEST(PgArrayTest, LiteralsToJson) {
    const struct {
        const char* text;
        ColumnType element;
        const char* want;
    } cases[] = {
        {"{1,2,NULL}", ColumnType::kInt, "[1,2,null]"},
        {"{}", ColumnType::kInt, "[]"},
        {"{{1,2},{3,4}}", ColumnType::kInt, "[[1,2],[3,4]]"},
        {"{{{1}},{{2}}}", ColumnType::kInt, "[[[1]],[[2]]]"},
        {"[0:1]={5,6}", ColumnType::kInt, "[5,6]"},
        {"[0:1][1:1]={{5},{6}}", ColumnType::kInt, "[[5],[6]]"},
        {"{t,f,NULL}", ColumnType::kBool, "[true,false,null]"},
        {"{1.5,0.25,-2.5e-05}", ColumnType::kFloat, "[1.5,0.25,-2.5e-05]"},
        {"{1.50,NaN,-0.000}", ColumnType::kNumeric, "[\"1.50\",\"NaN\",\"-0.000\"]"},
        {"{\"a,b\",\"c\\\"d\",\"e\\\\f\",NULL,\"NULL\",null,\"\",\" sp \",\"{x}\",plain}", ColumnType::kText,
         "[\"a,b\",\"c\\\"d\",\"e\\\\f\",null,\"NULL\",null,\"\",\" sp \",\"{x}\",\"plain\"]"},
        {"{a\\,b,\\NULL}", ColumnType::kText, "[\"a,b\",\"NULL\"]"},  // escapes in unquoted elements
        {"{ 1 , 2 }", ColumnType::kInt, "[1,2]"},                     // whitespace around elements
        {"{\"{\\\"a\\\": [1, 2]}\",NULL,\"[]\"}", ColumnType::kJson, "[{\"a\":[1,2]},null,[]]"},
        {"{\"\\\\x00ff\",\"\\\\x\"}", ColumnType::kBytes, "[\"AP8=\",\"\"]"},
        {"{\"2024-01-02 03:04:05\"}", ColumnType::kTimestamp, "[\"2024-01-02 03:04:05\"]"},
        {"{{\"a\",\"b\"},{NULL,\"\\\\\"}}", ColumnType::kText, "[[\"a\",\"b\"],[null,\"\\\\\"]]"},
        {"{{},{}}", ColumnType::kText, "[[],[]]"},
        {"{{{{{{1}}}}}}", ColumnType::kInt, "[[[[[[1]]]]]]"},
    };
    std::string out;
    for (const auto& c : cases) {
        base::Status s = to_json(c.text, c.element, out);
        ASSERT_TRUE(s.is_ok()) << c.text << ": " << s.to_string();
        EXPECT_EQ(out, c.want) << c.text;
    }
}

TEST(PgArrayTest, MalformedLiteralsAreRefused) {
    const char* bad[] = {"",
                         "{",
                         "}",
                         "{1,}",
                         "{,1}",
                         "1",
                         "{1}x",
                         "{1}}",
                         "{\"a}",
                         "{{1}",
                         "{a\"b}",
                         "{a{b}",
                         "[0:1]{1}",
                         "{1,,2}",
                         "{a\\}",
                         "{\"a\\}",
                         "{{{{{{{1}}}}}}}",
                         "{\"a\" \"b\"}"};
    std::string out;
    for (const char* text : bad) {
        base::Status s = to_json(text, ColumnType::kText, out);
        EXPECT_TRUE(s.is_invalid_argument()) << text << ": " << s.to_string();
    }
    EXPECT_TRUE(to_json("{1.5,NaN}", ColumnType::kFloat, out).is_out_of_range());
}

// A random nested array: each node is a NULL, a text element, or a sub-array.
struct Node {
    enum Kind { kNull, kText, kArray } kind = kNull;
    std::string text;
    std::vector<Node> items;
};

Node random_node(std::mt19937& rng, int depth) {
    static const std::string kChars = "ab ,{}\"\\NULnul\t\n'x\xc3\xa9";
    Node n;
    const unsigned pick = rng() % 10;
    if (depth < kMaxArrayDepth && pick < 2) {
        n.kind = Node::kArray;
        const int count = static_cast<int>(rng() % 4);
        for (int i = 0; i < count; ++i)
            n.items.push_back(random_node(rng, depth + 1));
    } else if (pick < 3) {
        n.kind = Node::kNull;
    } else {
        n.kind = Node::kText;
        const int len = static_cast<int>(rng() % 8);
        for (int i = 0; i < len; ++i)
            n.text.push_back(kChars[rng() % kChars.size()]);
        if (rng() % 8 == 0) n.text = rng() % 2 ? "NULL" : "null";
    }
    return n;
}

// Writes the node as PostgreSQL writes arrays: quoted when needed (or at random, which it may be), \" and \\.
void write_literal(const Node& n, std::mt19937& rng, std::string& out) {
    if (n.kind == Node::kNull) {
        out += "NULL";
        return;
    }
    if (n.kind == Node::kArray) {
        out.push_back('{');
        for (std::size_t i = 0; i < n.items.size(); ++i) {
            if (i > 0) out.push_back(',');
            write_literal(n.items[i], rng, out);
        }
        out.push_back('}');
        return;
    }
    std::string lower = n.text;
    for (char& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool needs_quotes = n.text.empty() || lower == "null";  // NULL in any case would read as a NULL
    for (char c : n.text)
        needs_quotes = needs_quotes || std::string_view(" ,{}\"\\\t\n").find(c) != std::string_view::npos;
    if (!needs_quotes && rng() % 2 == 0) {
        out += n.text;
        return;
    }
    out.push_back('"');
    for (char c : n.text) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c);
    }
    out.push_back('"');
}

void write_expected(const Node& n, json::Writer& w) {
    if (n.kind == Node::kNull) {
        w.null();
    } else if (n.kind == Node::kText) {
        w.string(n.text);
    } else {
        w.begin_array();
        for (const Node& item : n.items)
            write_expected(item, w);
        w.end_array();
    }
}

TEST(PgArrayTest, RandomNestedArraysRoundTrip) {
    std::mt19937 rng(1919);
    std::string literal;
    std::string got;
    std::string want;
    for (int iter = 0; iter < 5000; ++iter) {
        Node root;
        root.kind = Node::kArray;
        const int count = static_cast<int>(rng() % 5);
        for (int i = 0; i < count; ++i)
            root.items.push_back(random_node(rng, 2));
        literal.clear();
        write_literal(root, rng, literal);
        want.clear();
        json::Writer w(want);
        write_expected(root, w);
        base::Status s = to_json(literal, ColumnType::kText, got);
        ASSERT_TRUE(s.is_ok()) << literal << ": " << s.to_string();
        ASSERT_EQ(got, want) << literal;
    }
}

TEST(PgArrayTest, RandomBytesNeverCrash) {
    std::mt19937 rng(7);
    const std::string kChars = "{}\",\\ NUL1[]:=";
    std::string text;
    std::string out;
    int accepted = 0;
    for (int iter = 0; iter < 20000; ++iter) {
        text.clear();
        const int len = static_cast<int>(rng() % 24);
        for (int i = 0; i < len; ++i)
            text.push_back(rng() % 8 == 0 ? static_cast<char>(rng() % 256) : kChars[rng() % kChars.size()]);
        base::Status s = to_json(text, ColumnType::kText, out);
        if (s.is_ok()) {
            ++accepted;
            EXPECT_EQ(out.front(), '[') << text;
            EXPECT_EQ(out.back(), ']') << text;
        } else {
            EXPECT_TRUE(s.is_invalid_argument()) << text;
        }
    }
    EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace slipstream::store::postgres
