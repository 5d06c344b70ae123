// Tests for the lookup byte helpers: compares, '/' search and token keys at every length and offset.
#include "router/path_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::server::detail {
namespace {

TEST(PathScan, BytesEqualFindsAMismatchAtEveryOffset) {
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string a(n, 'x');
        for (std::size_t i = 0; i < n; ++i)
            a[i] = static_cast<char>('a' + i % 26);
        std::string b = a;
        EXPECT_TRUE(bytes_equal(a.data(), b.data(), n)) << n;
        for (std::size_t i = 0; i < n; ++i) {
            std::string c = a;
            c[i] = static_cast<char>(c[i] ^ 0x80);
            EXPECT_FALSE(bytes_equal(a.data(), c.data(), n)) << n << " at " << i;
        }
    }
}

TEST(PathScan, FindSlashAtEveryOffset) {
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string s(n, 'y');
        EXPECT_EQ(find_slash(s), n);
        for (std::size_t i = 0; i < n; ++i) {
            std::string t = s;
            t[i] = '/';
            if (i + 1 < n) t[n - 1] = '/';  // a later slash must not win
            EXPECT_EQ(find_slash(t), i) << n << " at " << i;
        }
    }
    // Bytes just above and below '/' (0x2f), and 0x80+ bytes, are not slashes.
    EXPECT_EQ(find_slash(std::string("\x2e\x30\xaf\xff\x00\x01\x2e\x30/", 9)), 8u);
}

TEST(PathScan, TokenLength) {
    EXPECT_EQ(token_length("/"), 1u);
    EXPECT_EQ(token_length("//"), 1u);
    EXPECT_EQ(token_length("/abc"), 4u);
    EXPECT_EQ(token_length("/abc/def"), 4u);
    EXPECT_EQ(token_length("/abcdefghijklmnop/q"), 17u);
}

TEST(PathScan, TokenKeyIgnoresBytesAfterTheToken) {
    const std::string tokens[] = {"/", "/a", "/abc", "/abcdefg", "/abcdefgh", "/abcdefghi", "/abcdefghijklmnopq"};
    for (const std::string& t : tokens) {
        std::uint64_t alone = token_key_hash(t);
        for (std::string_view after : {"/", "/zzzzzzzzzzzz", "//x"}) {
            std::string path = t;
            path.append(after);
            EXPECT_EQ(token_key_hash(path), alone) << path;
        }
    }
    // Different short tokens get different keys (and an empty segment differs from "/\0").
    EXPECT_NE(token_key_hash("/a"), token_key_hash("/b"));
    EXPECT_NE(token_key_hash("/ab"), token_key_hash("/a"));
    EXPECT_NE(token_key_hash("/"), token_key_hash(std::string("/\0", 2)));
}

}  // namespace
}  // namespace slipstream::server::detail
