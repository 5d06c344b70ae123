// Strict base64url: canonical unpadded text decodes; padding, other alphabets, 4n+1 and stray bits do not.
#include "policy/auth/base64url.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "policy/auth/test_tokens.h"

namespace slipstream::policy::auth::detail {
namespace {

std::optional<std::string> decode(std::string_view in) {
    std::string out(base64url_decoded_size(in.size()), '\0');
    if (!decode_base64url(in, reinterpret_cast<unsigned char*>(out.data()))) return std::nullopt;
    return out;
}

TEST(Base64UrlTest, DecodesCanonicalText) {
    struct Case {
        std::string_view in;
        std::string out;
    };
    const std::vector<Case> cases = {
        {"", ""},
        {"Zg", "f"},
        {"Zm8", "fo"},
        {"Zm9v", "foo"},
        {"Zm9vYg", "foob"},
        {"Zm9vYmE", "fooba"},
        {"Zm9vYmFy", "foobar"},
        {"-_-_", "\xfb\xff\xbf"},
        {"AAAA", std::string(3, '\0')},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.in);
        EXPECT_EQ(decode(c.in), std::optional<std::string>(c.out));
    }
}

TEST(Base64UrlTest, RefusesAnythingElse) {
    const std::vector<std::string_view> cases = {
        "Z",       // 4n+1 characters
        "Zm9vY",   // 4n+1
        "Zg==",    // padding
        "Zm8=",    // padding
        "Zh",      // unused bits set (canonical is "Zg")
        "Zm9",     // unused bits set (canonical is "Zm8")
        "Zm+v",    // base64 alphabet, not base64url
        "Zm/v",    // base64 alphabet
        "Zm 9v",   // space
        "Zm9v\n",  // newline
        "Zm.v",    // separator
        "Zm9\xc3\xa9", std::string_view("Zm\0v", 4),
    };
    for (std::string_view in : cases) {
        SCOPED_TRACE(std::string(in));
        EXPECT_EQ(decode(in), std::nullopt);
    }
}

TEST(Base64UrlTest, RoundTripsEveryByteAtEveryLength) {
    std::string bytes;
    for (int i = 0; i < 256; ++i)
        bytes += static_cast<char>(i);
    for (std::size_t n = 0; n <= bytes.size(); ++n) {
        const std::string in = bytes.substr(bytes.size() - n);
        EXPECT_EQ(decode(testkit::b64url(in)), std::optional<std::string>(in)) << n;
    }
}

}  // namespace
}  // namespace slipstream::policy::auth::detail
