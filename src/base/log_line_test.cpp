// format_log_line: each format's exact line, JSON escaping, and the format names.
#include "base/log_line.h"

#include <gtest/gtest.h>

namespace slipstream::base {
namespace {

TEST(LogLineTest, EachFormatWritesOneLine) {
    const std::int64_t t = 1796637498123;  // 2026-12-07T09:58:18.123Z
    EXPECT_EQ(format_log_line(LogFormat::kText, LogLevel::kInfo, "draining", t), "info: draining\n");
    EXPECT_EQ(format_log_line(LogFormat::kColor, LogLevel::kWarn, "slow", t), "\x1b[33mwarn\x1b[0m: slow\n");
    EXPECT_EQ(format_log_line(LogFormat::kJson, LogLevel::kError, "bad \"x\"\n\x01", t),
              "{\"ts\":\"2026-12-07T09:58:18.123Z\",\"level\":\"error\",\"msg\":\"bad \\\"x\\\"\\n\\u0001\"}\n");
}

TEST(LogLineTest, FormatNames) {
    LogFormat f = LogFormat::kJson;
    EXPECT_TRUE(parse_log_format("text", &f));
    EXPECT_EQ(f, LogFormat::kText);
    EXPECT_TRUE(parse_log_format("json", &f));
    EXPECT_EQ(f, LogFormat::kJson);
    EXPECT_TRUE(parse_log_format("color", &f));
    EXPECT_EQ(f, LogFormat::kColor);
    EXPECT_TRUE(parse_log_format("auto", &f));  // no terminal under ctest
    EXPECT_FALSE(parse_log_format("xml", &f));
}

}  // namespace
}  // namespace slipstream::base
