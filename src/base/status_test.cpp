// Status and Result behaviour.
#include "base/result.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace slipstream::base {
namespace {

Result<int> parse_positive(int v) {
    if (v <= 0) return Status::invalid_argument("not positive");
    return v;
}

Status twice(int v, int* out) {
    SLIPSTREAM_ASSIGN_OR_RETURN(int x, parse_positive(v));
    *out = x * 2;
    return Status::ok();
}

TEST(StatusTest, OkHasNoMessage) {
    Status s = Status::ok();
    EXPECT_TRUE(s.is_ok());
    EXPECT_EQ(s.to_string(), "ok");
}

TEST(StatusTest, NamedConstructorsSetCode) {
    EXPECT_TRUE(Status::timeout("t").is_timeout());
    EXPECT_TRUE(Status::out_of_range("r").is_out_of_range());
    EXPECT_EQ(Status::not_found("route").to_string(), "not_found: route");
    EXPECT_EQ(Status::from_errno("bind", EADDRINUSE).to_string(), "io_error: bind: Address already in use");
}

TEST(ResultTest, ValueAndErrorPropagate) {
    int out = 0;
    EXPECT_TRUE(twice(21, &out).is_ok());
    EXPECT_EQ(out, 42);
    Status err = twice(-1, &out);
    EXPECT_TRUE(err.is_invalid_argument());
    EXPECT_EQ(err.message(), "not positive");
}

}  // namespace
}  // namespace slipstream::base
