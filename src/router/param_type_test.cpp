// Tests for parameter type names and the int/float/uuid segment checks.
#include "router/param_type.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace slipstream::server {
namespace {

TEST(ParamType, NamesRoundTrip) {
    const ParamType all[] = {ParamType::kInt, ParamType::kFloat, ParamType::kUuid, ParamType::kStr, ParamType::kPath};
    for (ParamType t : all)
        EXPECT_EQ(parse_param_type(param_type_name(t)), t);
    EXPECT_EQ(parse_param_type("integer"), std::nullopt);
    EXPECT_EQ(parse_param_type("INT"), std::nullopt);
    EXPECT_EQ(parse_param_type(""), std::nullopt);
}

TEST(ParamType, AcceptsInt64DecimalsOnly) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    struct Row {
        std::string_view seg;
        bool ok;
        std::int64_t value;
    };
    const Row rows[] = {
        {"0", true, 0},
        {"42", true, 42},
        {"-42", true, -42},
        {"+7", true, 7},
        {"007", true, 7},
        {"-0", true, 0},
        {"9223372036854775807", true, kMax},
        {"-9223372036854775808", true, kMin},
        {"9223372036854775808", false, 0},
        {"-9223372036854775809", false, 0},
        {"99999999999999999999", false, 0},
        {"18446744073709551615", false, 0},  // UINT64_MAX
        {"9999999999999999999", false, 0},   // 19 digits, over INT64_MAX
        {"00000000000000000000000042", true, 42},
        {"-00000000000000000000009223372036854775808", true, kMin},
        {"0000000000000000000000", true, 0},
        {"000000000000000000000x", false, 0},
        {"", false, 0},
        {"-", false, 0},
        {"+", false, 0},
        {"+-1", false, 0},
        {"1a", false, 0},
        {" 1", false, 0},
        {"1.0", false, 0},
        {"0x10", false, 0},
        {"١", false, 0},  // Arabic-Indic digit one: not ASCII
    };
    for (const Row& row : rows) {
        std::int64_t v = -1;
        EXPECT_EQ(detail::accept_int(row.seg, &v), row.ok) << row.seg;
        if (row.ok) {
            EXPECT_EQ(v, row.value) << row.seg;
        }
    }
}

TEST(ParamType, AcceptsPlainDecimalFloats) {
    struct Row {
        std::string_view seg;
        bool ok;
        double value;
    };
    const Row rows[] = {
        {"1", true, 1.0},      {"1.5", true, 1.5}, {"-2.25", true, -2.25}, {"+0.5", true, 0.5},
        {"007.50", true, 7.5}, {"1.", false, 0},   {".5", false, 0},       {"1e5", false, 0},
        {"1.2.3", false, 0},   {"", false, 0},     {"-", false, 0},        {"nan", false, 0},
        {"inf", false, 0},     {"1,5", false, 0},  {"+.5", false, 0},      {"-1.5x", false, 0},
    };
    for (const Row& row : rows) {
        double v = -1;
        EXPECT_EQ(detail::accept_float(row.seg, &v), row.ok) << row.seg;
        if (row.ok) {
            EXPECT_EQ(v, row.value) << row.seg;
        }
    }
    std::string huge(401, '0');
    huge[0] = '1';
    double v = 0;
    EXPECT_FALSE(detail::accept_float(huge, &v));
}

TEST(ParamType, AcceptsCanonicalUuids) {
    struct Row {
        std::string_view seg;
        bool ok;
    };
    const Row rows[] = {
        {"123e4567-e89b-12d3-a456-426614174000", true},  {"123E4567-E89B-12D3-A456-426614174000", true},
        {"00000000-0000-0000-0000-000000000000", true},  {"123e4567e89b12d3a456426614174000", false},
        {"123e4567-e89b-12d3-a456-42661417400", false},  {"123e4567-e89b-12d3-a456-4266141740000", false},
        {"123e4567-e89b-12d3-a456_426614174000", false}, {"g23e4567-e89b-12d3-a456-426614174000", false},
        {"{23e4567-e89b-12d3-a456-42661417400}", false}, {"", false},
    };
    for (const Row& row : rows)
        EXPECT_EQ(detail::accept_uuid(row.seg), row.ok) << row.seg;
}

}  // namespace
}  // namespace slipstream::server
