// Tests for decode_settings_header: HTTP2-Settings values in, SETTINGS payload bytes or an error out.
#include "http/h2/settings_header.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::http::h2 {
namespace {

struct Case {
    const char* value;
    bool ok;
    std::string payload;
};

TEST(SettingsHeader, DecodesBase64url) {
    const Case cases[] = {
        {"", true, ""},
        // SETTINGS_MAX_CONCURRENT_STREAMS (3) = 100, SETTINGS_INITIAL_WINDOW_SIZE (4) = 65535 (curl's value).
        {"AAMAAABkAAQAAP__", true, std::string("\x00\x03\x00\x00\x00\x64\x00\x04\x00\x00\xff\xff", 12)},
        {" AAMAAABkAAQAAP__ ", true, std::string("\x00\x03\x00\x00\x00\x64\x00\x04\x00\x00\xff\xff", 12)},
        {"AAEAABAA", true, std::string("\x00\x01\x00\x00\x10\x00", 6)},
        {"AAEAABAA==", true, std::string("\x00\x01\x00\x00\x10\x00", 6)},
        {"AAMAAABkAAQAAP//", false, ""},  // '/' is base64, not base64url
        {"AAMAAABkAAQAAP+_", false, ""},
        {"AAEAAB", false, ""},     // 4 bytes: not a whole setting
        {"AAEAABAAA", false, ""},  // a length no base64 text has
        {"AA EAABAA", false, ""},
        {"AAIAAAAC", false, ""},  // ENABLE_PUSH = 2
        {"AAIAAAAB", true, std::string("\x00\x02\x00\x00\x00\x01", 6)},
        {"AAQAAAAA", true, std::string("\x00\x04\x00\x00\x00\x00", 6)},
        {"AASAAAAA", false, ""},  // INITIAL_WINDOW_SIZE = 2^31
        {"AAUAAD__", false, ""},  // MAX_FRAME_SIZE = 16383
        {"AAUAAEAA", true, std::string("\x00\x05\x00\x00\x40\x00", 6)},
    };
    for (const Case& c : cases) {
        base::Result<std::string> r = decode_settings_header(c.value);
        EXPECT_EQ(r.is_ok(), c.ok) << c.value;
        if (c.ok && r.is_ok()) {
            EXPECT_EQ(*r, c.payload) << c.value;
        }
        if (!c.ok && !r.is_ok()) {
            EXPECT_TRUE(r.status().is_invalid_argument()) << c.value;
        }
    }
}

}  // namespace
}  // namespace slipstream::http::h2
