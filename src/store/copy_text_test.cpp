// COPY text format without a server: the value encoder and line parser (tables and a seeded round trip).
#include "store/copy_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace slipstream::store {
namespace {

TEST(CopyTextTest, EncodesEachKindWithCopyEscapes) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<Value> row = {std::monostate{},
                                    true,
                                    false,
                                    std::int64_t{-42},
                                    std::int64_t{INT64_MIN},
                                    0.1,
                                    1e300,
                                    std::nan(""),
                                    inf,
                                    -inf,
                                    std::string("a\tb\nc\rd\\e"),
                                    std::string("\\N"),
                                    std::string(""),
                                    std::string("h\u00e9 \"q\" \x01"),
                                    Bytes{std::string("\0\x01\xff", 3)},
                                    Bytes{}};
    std::string out;
    encode_copy_text_row(row, out);
    EXPECT_EQ(out,
              "\\N\tt\tf\t-42\t-9223372036854775808\t0.1\t1e+300\tNaN\tInfinity\t-Infinity\t"
              "a\\tb\\nc\\rd\\\\e\t\\\\N\t\t"
              "h\u00e9 \"q\" \x01\t\\\\x0001ff\t\\\\x\n");
    encode_copy_text_row({}, out);  // a row of no columns is an empty line
    EXPECT_EQ(out.back(), '\n');
    EXPECT_EQ(out[out.size() - 2], '\n');
}

TEST(CopyTextTest, ParsesFieldsAndEveryEscape) {
    std::vector<Value> fields;
    ASSERT_TRUE(parse_copy_text_row("1\t\\N\tx\\ty\\nz\\\\\t\\N\\N\t\n", fields));
    EXPECT_EQ(fields, (std::vector<Value>{std::string("1"), std::monostate{}, std::string("x\ty\nz\\"),
                                          std::string("NN"), std::string("")}));
    ASSERT_TRUE(parse_copy_text_row("\\b\\f\\v\\r\\101\\7\\x41\\x4g\\xz\\q", fields));
    EXPECT_EQ(fields, (std::vector<Value>{std::string("\b\f\v\rA\x07"
                                                      "A\x04gxzq")}));
    ASSERT_TRUE(parse_copy_text_row("", fields));
    EXPECT_EQ(fields, (std::vector<Value>{std::string()}));
    EXPECT_FALSE(parse_copy_text_row("abc\\", fields));
    EXPECT_FALSE(parse_copy_text_row("abc\\\n", fields));
}

// Seeded: random rows of hostile text and NULLs survive encode -> parse exactly.
TEST(CopyTextTest, RandomRowsRoundTrip) {
    std::mt19937 rng(19);
    const std::string alphabet = std::string("\t\n\r\\N.\"',{} aZ\x01\x7f", 17) + "\xc3\xa9";
    std::vector<Value> row;
    std::vector<Value> back;
    std::string line;
    for (int iter = 0; iter < 5000; ++iter) {
        row.clear();
        const int cols = 1 + static_cast<int>(rng() % 6);
        for (int c = 0; c < cols; ++c) {
            if (rng() % 5 == 0) {
                row.emplace_back(std::monostate{});
                continue;
            }
            std::string s;
            const int len = static_cast<int>(rng() % 12);
            for (int k = 0; k < len; ++k)
                s.push_back(rng() % 4 == 0 ? static_cast<char>(1 + rng() % 255) : alphabet[rng() % alphabet.size()]);
            row.emplace_back(std::move(s));
        }
        line.clear();
        encode_copy_text_row(row, line);
        ASSERT_EQ(line.find('\n'), line.size() - 1) << "one line per row";
        ASSERT_TRUE(parse_copy_text_row(line, back));
        ASSERT_EQ(back, row) << line;
    }
}

}  // namespace
}  // namespace slipstream::store
