// DecideAccess: what each principal may do with the decision routes: `read` (decide and read: spec, decisions,
// model, evaluate) or `write` (also learn: reward, PUT spec, promote), on every tenant or on listed ones.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"

namespace slipstream::agent::decide {

enum class AccessLevel : unsigned char { kNone, kRead, kWrite };

/// "none", "read" or "write"; nullopt-like kNone with ok=false for anything else.
bool parse_access_level(std::string_view text, AccessLevel& out);

/// The level scopes (space-separated: admin, tenant_admin:<t>, write[:<t>], read[:<t>]) grant on `tenant`.
AccessLevel scoped_level(std::string_view scopes, std::string_view tenant);

/// Immutable after parse(); any thread may read it.
class DecideAccess {
  public:
    /// Everyone: `level` on every tenant (the default: write, as without a file).
    explicit DecideAccess(AccessLevel level = AccessLevel::kWrite) : default_(level) {}

    /// Lines `<principal> <read|write|none> [<tenant>[,<tenant>...]]` (`#` comments, blank lines): the principal's
    /// level, on the listed tenants only when a list is given (on the others: none). Principals not listed (and
    /// "anonymous" while authentication is off) get `default_level`. kInvalidArgument naming the line for a bad
    /// line, a repeated principal, more than `max_lines` entries, or a tenant name outside [A-Za-z0-9._-]{1,64}.
    static base::Result<DecideAccess> parse(std::string_view text, AccessLevel default_level,
                                            std::size_t max_lines = 100'000);
    /// parse() of a file's content; kNotFound / kInvalidArgument naming the file.
    static base::Result<DecideAccess> load(const std::string& path, AccessLevel default_level);

    /// The principal's level on `tenant`.
    AccessLevel level(std::string_view principal, std::string_view tenant) const;

  private:
    struct Entry {
        AccessLevel level = AccessLevel::kNone;
        std::vector<std::string> tenants;  // empty: every tenant
    };
    AccessLevel default_;
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace slipstream::agent::decide
