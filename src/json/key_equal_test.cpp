// key_equal(): every length around the 4/8/16-byte load boundaries, a difference at every position.
#include "json/key_equal.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::json {
namespace {

TEST(KeyEqualTest, EqualStringsOfEveryLengthUpTo40) {
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string a(n, 'k'), b(n, 'k');
        for (std::size_t i = 0; i < n; ++i)
            a[i] = b[i] = static_cast<char>('a' + i % 26);
        EXPECT_TRUE(key_equal(a, b)) << n;
    }
}

TEST(KeyEqualTest, OneDifferingByteAtEveryPositionIsSeen) {
    for (std::size_t n = 1; n <= 40; ++n) {
        for (std::size_t at = 0; at < n; ++at) {
            std::string a(n, 'x'), b(n, 'x');
            b[at] = 'y';
            EXPECT_FALSE(key_equal(a, b)) << n << " at " << at;
        }
    }
}

TEST(KeyEqualTest, LengthDecidesFirstAndViewsOfLargerBuffersCompareOnlyTheirBytes) {
    const std::string buffer = "name_tagsname_";
    EXPECT_FALSE(key_equal("name", "names"));
    EXPECT_FALSE(key_equal("", "a"));
    EXPECT_TRUE(key_equal(std::string_view(buffer).substr(0, 4), std::string_view(buffer).substr(9, 4)));
    EXPECT_FALSE(key_equal(std::string_view(buffer).substr(0, 4), std::string_view(buffer).substr(5, 4)));
}

}  // namespace
}  // namespace slipstream::json
