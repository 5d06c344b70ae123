// resource_metadata(): the RFC 9728 document, its URL, its routes, and each invalid setting named.
#include "agent/mcp/resource_metadata.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace slipstream::mcp::detail {
namespace {

std::string error_of(const ServerConfig& c) {
    try {
        (void)resource_metadata(c, "/mcp");
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

ServerConfig configured() {
    ServerConfig c;
    c.resource = "https://mcp.example.com/mcp";
    c.authorization_servers = {"https://auth.example.com"};
    return c;
}

TEST(ResourceMetadata, WellKnownUrlInsertsThePath) {
    EXPECT_EQ(well_known_url("https://mcp.example.com/mcp"),
              "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
    EXPECT_EQ(well_known_url("https://mcp.example.com"),
              "https://mcp.example.com/.well-known/oauth-protected-resource");
    EXPECT_EQ(well_known_url("https://mcp.example.com/"),
              "https://mcp.example.com/.well-known/oauth-protected-resource");
    EXPECT_EQ(well_known_url("http://127.0.0.1:8080/public/mcp"),
              "http://127.0.0.1:8080/.well-known/oauth-protected-resource/public/mcp");
    EXPECT_EQ(well_known_url("https://h/r?t=1"), "https://h/.well-known/oauth-protected-resource/r?t=1");
}

TEST(ResourceMetadata, NoneWithoutResource) {
    EXPECT_FALSE(resource_metadata(ServerConfig{}, "/mcp"));
}

TEST(ResourceMetadata, DocumentUrlAndRoutes) {
    ServerConfig c = configured();
    auto m = resource_metadata(c, "/mcp");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->document, R"({"resource":"https://mcp.example.com/mcp","authorization_servers":)"
                           R"(["https://auth.example.com"],"bearer_methods_supported":["header"]})");
    EXPECT_EQ(m->url, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
    EXPECT_EQ(m->paths, (std::vector<std::string>{"/.well-known/oauth-protected-resource",
                                                  "/.well-known/oauth-protected-resource/mcp"}));

    c.scopes_supported = {"mcp:tools", "files:read"};
    c.bearer_methods_supported = {};
    c.resource_name = "Example \"MCP\"";
    c.resource_metadata_url = "https://meta.example.com/prm";
    c.authorization_servers.push_back("https://auth2.example.com/tenant1");
    m = resource_metadata(c, "/");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->document, R"({"resource":"https://mcp.example.com/mcp","authorization_servers":)"
                           R"(["https://auth.example.com","https://auth2.example.com/tenant1"],)"
                           R"("scopes_supported":["mcp:tools","files:read"],"resource_name":"Example \"MCP\""})");
    EXPECT_EQ(m->url, "https://meta.example.com/prm");
    EXPECT_EQ(m->paths, std::vector<std::string>{"/.well-known/oauth-protected-resource"});
}

TEST(ResourceMetadata, InvalidSettingsAreNamed) {
    ServerConfig c = configured();
    c.resource = "mcp.example.com/mcp";
    EXPECT_EQ(error_of(c), "resource: must be an absolute http or https URL");
    c.resource = "https://";
    EXPECT_EQ(error_of(c), "resource: must name a host");
    c.resource = "https:///mcp";
    EXPECT_EQ(error_of(c), "resource: must name a host");
    c.resource = "https://mcp.example.com/mcp#frag";
    EXPECT_EQ(error_of(c), "resource: must not have a fragment");
    c.resource = "https://mcp.example.com/a b";
    EXPECT_EQ(error_of(c), "resource: must not hold spaces, quotes, backslashes or control characters");
    c = configured();
    c.authorization_servers.clear();
    EXPECT_EQ(error_of(c),
              "authorization_servers: at least one is required with resource (the MCP authorization spec)");
    c.authorization_servers = {"https://auth.example.com?x=1"};
    EXPECT_EQ(error_of(c), "authorization_servers: must not have a query");
    c = configured();
    c.scopes_supported = {"ok", "not ok"};
    EXPECT_EQ(error_of(c), "scopes_supported: 'not ok' is not a scope token");
    c = configured();
    c.bearer_methods_supported = {"cookie"};
    EXPECT_EQ(error_of(c), "bearer_methods_supported: 'cookie' is none of header, body, query");
    c.bearer_methods_supported = {"header", "header"};
    EXPECT_EQ(error_of(c), "bearer_methods_supported: 'header' twice");
    c = configured();
    c.resource_metadata_url = "https://meta.example.com/\"";
    EXPECT_EQ(error_of(c), "resource_metadata_url: must not hold spaces, quotes, backslashes or control characters");
}

}  // namespace
}  // namespace slipstream::mcp::detail
