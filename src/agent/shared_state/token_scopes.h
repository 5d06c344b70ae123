// Token scopes: the grammar ("admin", "tenant_admin:acme", "read", "read:acme", "write:acme") and what they grant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace slipstream::agent::shared_state {

/// What a set of scopes grants on one tenant's decision routes.
enum class TenantAccess : unsigned char { kNone, kRead, kWrite };

/// One scope: `admin` (everything, token administration included), `tenant_admin:<t>` (learn on tenant t and
/// administer t's tokens), `write[:<t>]` (decide, read and learn: reward, spec changes, promotion), `read[:<t>]`
/// (decide and read, never learn). Without a tenant, `read` and `write` hold on every tenant. Tenants are
/// [A-Za-z0-9._-]{1,64}.
bool valid_scope(std::string_view scope);

/// The scopes of a space-separated list (empty words skipped).
std::vector<std::string_view> split_scopes(std::string_view scopes);

/// The tenant a scope names ("" for admin and unqualified read/write).
std::string_view scope_tenant(std::string_view scope);

/// What `scopes` (space-separated) grants on `tenant`: the highest of its scopes'.
TenantAccess tenant_access(std::string_view scopes, std::string_view tenant);

/// True when `scopes` holds at least one scope of this grammar (a JWT from an OAuth server may carry only others,
/// such as "mcp:tools": it then says nothing about these grants).
bool names_access_scope(std::string_view scopes);

/// True when `scopes` holds `admin`.
bool has_admin(std::string_view scopes);

/// True when a principal with `holder` scopes may issue, see and revoke a token with `scopes`: `admin` may any;
/// `tenant_admin:t` those whose every scope is read:t or write:t.
bool may_administer(std::string_view holder, std::string_view scopes);

}  // namespace slipstream::agent::shared_state
