// The SSE2 scanners agree with the byte table for every byte value at every position.
#include "http/h1/simd_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::http::h1::detail {
namespace {

template <typename Fast>
void expect_same_as_table(std::uint8_t mask, char filler) {
    for (int c = 0; c < 256; ++c) {
        for (std::size_t pos = 0; pos < 40; ++pos) {
            std::string buf(48, filler);
            buf[pos] = static_cast<char>(c);
            const char* b = buf.data();
            const char* e = b + buf.size();
            ASSERT_EQ(scan_class_fast<Fast>(b, e, mask), scan_class(b, e, mask)) << "byte " << c << " at " << pos;
        }
    }
}

TEST(SimdScanTest, TokenScanMatchesTable) {
    expect_same_as_table<TokenFast>(kTchar, 'x');
}
TEST(SimdScanTest, PathScanMatchesTable) {
    expect_same_as_table<TargetFast>(kPathChar, '/');
}
TEST(SimdScanTest, TargetScanMatchesTable) {
    expect_same_as_table<TargetFast>(kTargetChar, '=');
}
TEST(SimdScanTest, HostScanMatchesTable) {
    expect_same_as_table<HostFast>(kHostChar, '.');
}

TEST(SimdScanTest, FieldValueScanMatchesTable) {
    for (int c = 0; c < 256; ++c) {
        for (std::size_t pos = 0; pos < 40; ++pos) {
            std::string buf(48, 'v');
            buf[pos] = static_cast<char>(c);
            buf[(pos + 7) % 48] = '\t';  // tabs are stepped over
            const char* b = buf.data();
            const char* e = b + buf.size();
            ASSERT_EQ(scan_field_value(b, e), scan_class(b, e, kFieldChar)) << "byte " << c << " at " << pos;
        }
    }
}

TEST(SimdScanTest, EqualsLower) {
    EXPECT_TRUE(equals_lower("Transfer-Encoding", "transfer-encoding"));
    EXPECT_TRUE(equals_lower("CONTENT-LENGTH", "content-length"));
    EXPECT_TRUE(equals_lower("Host", "host"));
    EXPECT_TRUE(equals_lower("Ho", "ho"));
    EXPECT_FALSE(equals_lower("Hosts", "host"));
    EXPECT_FALSE(equals_lower("Content-Lengtg", "content-length"));
    EXPECT_FALSE(equals_lower("Transfer-Encodinh", "transfer-encoding"));
    EXPECT_FALSE(equals_lower("Content_Length", "content-length"));
}

}  // namespace
}  // namespace slipstream::http::h1::detail
