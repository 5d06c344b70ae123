// append_double_repr against Python's repr(float), and JsonView -> text.
#include "json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace slipstream::python {
namespace {

std::string repr(double d) {
    std::string out;
    append_double_repr(out, d);
    return out;
}

TEST(JsonText, DoubleReprMatchesPython) {
    struct Case {
        double value;
        const char* python;
    } cases[] = {
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {1.0, "1.0"},
        {-2.5, "-2.5"},
        {0.1, "0.1"},
        {1e15, "1000000000000000.0"},
        {1e16, "1e+16"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {1e-4, "0.0001"},
        {1e-5, "1e-05"},
        {1.5e-7, "1.5e-07"},
        {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {9999999999999998.0, "9999999999999998.0"},
        {0.30000000000000004, "0.30000000000000004"},
        {100.0, "100.0"},
        {1e22, "1e+22"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(repr(c.value), c.python) << c.python;
}

TEST(JsonText, StringEscapes) {
    std::string out;
    std::string in = std::string("a\"\\\n\r\t\b\f\x01\x1f\x7f") + "\xC3\xA9";
    append_json_string(out, in.data(), in.size());
    EXPECT_EQ(out, "\"a\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\x7f\xC3\xA9\"");
}

}  // namespace
}  // namespace slipstream::python
