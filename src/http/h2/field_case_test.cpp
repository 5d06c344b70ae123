// copy_lowercase and has_uppercase: every byte value at every position of names up to 24 bytes, against a byte-wise
// lowering.
#include "http/h2/field_case.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::http::h2::detail {
namespace {

std::string lowered(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return s;
}

TEST(HasUppercase, EveryByteAtEveryPosition) {
    for (std::size_t len = 1; len <= 24; ++len) {
        for (std::size_t at = 0; at < len; ++at) {
            for (int b = 0; b < 256; ++b) {
                std::string name(len, 'q');
                name[at] = static_cast<char>(b);
                ASSERT_EQ(has_uppercase(name), b >= 'A' && b <= 'Z') << "len " << len << " at " << at << " byte " << b;
            }
        }
    }
    EXPECT_FALSE(has_uppercase(""));
}

TEST(CopyLowercase, EveryByteAtEveryPosition) {
    for (std::size_t len = 1; len <= 24; ++len) {
        for (std::size_t at = 0; at < len; ++at) {
            for (int b = 0; b < 256; ++b) {
                std::string name(len, 'Q');
                name[at] = static_cast<char>(b);
                std::string out(len + 8, '#');  // bytes past the name stay untouched
                char* end = copy_lowercase(out.data(), name);
                ASSERT_EQ(end, out.data() + len);
                ASSERT_EQ(out.substr(0, len), lowered(name)) << "len " << len << " at " << at << " byte " << b;
                ASSERT_EQ(out.substr(len), std::string(8, '#'));
            }
        }
    }
}

TEST(CopyLowercase, FieldNames) {
    char out[32];
    for (std::string name : {"X-Request-ID", "Content-Type", "ETag", "a", "WWW-Authenticate", "already-lower"}) {
        copy_lowercase(out, name);
        EXPECT_EQ(std::string(out, name.size()), lowered(name));
    }
}

}  // namespace
}  // namespace slipstream::http::h2::detail
