// parse_url / join_url: schemes, hosts, ports, targets, and what is refused.
#include "store/http/url.h"

#include <gtest/gtest.h>

namespace slipstream::store::http {
namespace {

TEST(Url, Parses) {
    auto u = parse_url("https://API.example.com/v1/chat?x=1#frag");
    ASSERT_TRUE(u.is_ok());
    EXPECT_TRUE(u->tls);
    EXPECT_EQ(u->host, "api.example.com");
    EXPECT_EQ(u->port, 443);
    EXPECT_EQ(u->target, "/v1/chat?x=1");
    EXPECT_EQ(u->authority(), "api.example.com");
    EXPECT_EQ(u->origin(), "https://api.example.com:443");
    u = parse_url("http://127.0.0.1:8080");
    ASSERT_TRUE(u.is_ok());
    EXPECT_FALSE(u->tls);
    EXPECT_EQ(u->port, 8080);
    EXPECT_EQ(u->target, "/");
    EXPECT_EQ(u->authority(), "127.0.0.1:8080");
    u = parse_url("http://[::1]:9000?q");
    ASSERT_TRUE(u.is_ok());
    EXPECT_EQ(u->host, "::1");
    EXPECT_EQ(u->target, "/?q");
    EXPECT_EQ(u->authority(), "[::1]:9000");
    EXPECT_EQ(u->origin(), "http://[::1]:9000");
    EXPECT_EQ(parse_url("http://h/a%20b")->target, "/a%20b");
}

TEST(Url, Refuses) {
    for (const char* bad :
         {"ftp://x/", "http://", "http:///x", "http://user:pw@host/", "http://h:0/", "http://h:65536/", "http://h:/",
          "http://h:80a/", "http://[::1/", "http://[zz]/", "http://h/a b", "http://h/\r\nX: y", "http://h/%zz",
          "http://h/%2", "http://h/a\"b", "http://ho st/", "http://h\xc3\xa9/", "http://h/{x}"}) {
        EXPECT_TRUE(parse_url(bad).status().is_invalid_argument()) << bad;
    }
}

TEST(Url, Join) {
    EXPECT_EQ(join_url("http://h:1", "/v1/x"), "http://h:1/v1/x");
    EXPECT_EQ(join_url("http://h:1/", "v1/x"), "http://h:1/v1/x");
    EXPECT_EQ(join_url("https://h/openai/", "/v1/x"), "https://h/openai/v1/x");
}

}  // namespace
}  // namespace slipstream::store::http
