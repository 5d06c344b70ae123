// The token administration routes' OpenAPI description: what each takes and answers (token_routes.cpp's shapes).
#include "agent/shared_state/token_openapi.h"

#include <string>

namespace slipstream::agent::shared_state {

namespace {

using sessions::OperationDoc;

constexpr const char* kScopes =
    R"({"type":"array","items":{"type":"string","description":"admin, tenant_admin:<t>, read[:<t>] or write[:<t>]"}})";

std::string time_field(const char* name, const char* description) {
    return std::string("\"") + name + R"(":{"type":["integer","null"],"description":")" + description + "\"}";
}

// A token's row; `with_secret`: the 201 answer of POST, the only one that holds the secret.
std::string row_schema(bool with_secret) {
    std::string s = R"({"type":"object","properties":{"id":{"type":"string","description":"tok_ + 16 hex"},)";
    if (with_secret)
        s += R"("token":{"type":"string","description":"the secret (sst_ + 43 base64url characters), shown once"},)";
    s += R"("principal":{"type":"string"},"scopes":)" + std::string(kScopes) + "," +
         time_field("createdAt", "unix seconds") + "," + time_field("expiresAt", "unix seconds; null: never") + "," +
         time_field("lastUsedAt", "unix seconds; null: never used") + "," +
         time_field("revokedAt", "unix seconds; null: live") + R"(},"required":["id",)" +
         (with_secret ? std::string(R"("token",)") : std::string()) +
         R"("principal","scopes","createdAt","expiresAt","lastUsedAt","revokedAt"]})";
    return s;
}

constexpr const char* kIssueBody =
    R"({"type":"object","properties":{"principal":{"type":"string","pattern":"^[A-Za-z0-9._@:-]{1,128}$"},)"
    R"("scopes":{"oneOf":[{"type":"array","minItems":1,"maxItems":64,"items":{"type":"string"}},)"
    R"({"type":"string","description":"space-separated"}]},)"
    R"("expiresIn":{"type":["integer","null"],"minimum":1,"description":"seconds; absent or null: never"}},)"
    R"("required":["principal","scopes"]})";

ParamSpec path_id() {
    ParamSpec p;
    p.name = "id";
    p.source = ParamSource::kPath;
    p.schema_json = R"({"type":"string"})";
    return p;
}

OperationDoc doc(std::string method, std::string path, std::string summary, std::string response,
                 std::vector<int> problems) {
    OperationDoc d;
    d.method = std::move(method);
    d.path = std::move(path);
    d.summary = std::move(summary);
    d.response_schema = std::move(response);
    d.problems = std::move(problems);
    return d;
}

}  // namespace

std::vector<OperationDoc> token_operation_docs(std::string_view prefix) {
    const std::string base(prefix);
    std::vector<OperationDoc> ops;
    // The handlers read the bodies themselves (their 422s are problem documents naming the field); the RouteSpecs
    // here describe them.
    OperationDoc issue = doc("POST", base,
                             "Issue a token for a principal with scopes the caller may grant (admin: any; "
                             "tenant_admin:<t>: read:<t> and write:<t>); the secret is in this answer only",
                             row_schema(true), {401, 403, 409});
    issue.created = true;
    BodySpec body;
    body.schema_json = kIssueBody;
    issue.route.body.push_back(std::move(body));
    ops.push_back(std::move(issue));
    ops.push_back(doc("GET", base, "Every token the caller may administer, live and revoked, oldest first",
                      std::string(R"({"type":"object","properties":{"tokens":{"type":"array","items":)") +
                          row_schema(false) + R"(}},"required":["tokens"]})",
                      {401, 403}));
    OperationDoc one = doc("GET", base + "/{id}", "A token's row (404 when unknown or not the caller's to see)",
                           row_schema(false), {401, 403, 404});
    one.route.params.push_back(path_id());
    ops.push_back(std::move(one));
    OperationDoc revoke =
        doc("DELETE", base + "/{id}",
            "Revoke a token: refused with 401 by every replica within --token-refresh; answers the revoked row",
            row_schema(false), {401, 403, 404});
    revoke.route.params.push_back(path_id());
    ops.push_back(std::move(revoke));
    return ops;
}

std::string token_openapi_document(std::string_view prefix) {
    return sessions::openapi_document(token_operation_docs(prefix), "API tokens", "1", "tokens");
}

}  // namespace slipstream::agent::shared_state
