// Token scopes: the grammar, the grants on a tenant and who may administer which tokens.
#include "agent/shared_state/token_scopes.h"

#include <gtest/gtest.h>

namespace slipstream::agent::shared_state {
namespace {

TEST(TokenScopes, Grammar) {
    for (const char* ok : {"admin", "tenant_admin:acme", "read", "read:acme", "write", "write:a.b_c-9"})
        EXPECT_TRUE(valid_scope(ok)) << ok;
    for (const char* bad : {"", "admin:acme", "tenant_admin", "tenant_admin:", "read:", "read:a b", "reader",
                            "write:acme:x", "READ", "read:ac/me"})
        EXPECT_FALSE(valid_scope(bad)) << bad;
}

TEST(TokenScopes, TenantAccess) {
    EXPECT_EQ(tenant_access("read:acme", "acme"), TenantAccess::kRead);
    EXPECT_EQ(tenant_access("read:acme", "beta"), TenantAccess::kNone);
    EXPECT_EQ(tenant_access("read", "beta"), TenantAccess::kRead);
    EXPECT_EQ(tenant_access("read:acme write:beta", "beta"), TenantAccess::kWrite);
    EXPECT_EQ(tenant_access("tenant_admin:acme", "acme"), TenantAccess::kWrite);
    EXPECT_EQ(tenant_access("tenant_admin:acme", "beta"), TenantAccess::kNone);
    EXPECT_EQ(tenant_access("admin", "any"), TenantAccess::kWrite);
    EXPECT_EQ(tenant_access("", "acme"), TenantAccess::kNone);
}

TEST(TokenScopes, NamesAccessScope) {
    EXPECT_TRUE(names_access_scope("mcp:tools read:acme"));
    EXPECT_TRUE(names_access_scope("admin"));
    EXPECT_FALSE(names_access_scope("mcp:tools openid"));
    EXPECT_FALSE(names_access_scope(""));
}

TEST(TokenScopes, Administer) {
    EXPECT_TRUE(may_administer("admin", "admin"));
    EXPECT_TRUE(may_administer("tenant_admin:acme", "read:acme write:acme"));
    EXPECT_FALSE(may_administer("tenant_admin:acme", "read:acme read:beta"));
    EXPECT_FALSE(may_administer("tenant_admin:acme", "read"));
    EXPECT_FALSE(may_administer("tenant_admin:acme", "tenant_admin:acme"));
    EXPECT_FALSE(may_administer("write", "read:acme"));
    EXPECT_FALSE(may_administer("tenant_admin:acme", ""));
}

}  // namespace
}  // namespace slipstream::agent::shared_state
