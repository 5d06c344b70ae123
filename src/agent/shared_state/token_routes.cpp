// The token administration routes over TokenStore.
#include "agent/shared_state/token_routes.h"

#include <algorithm>
#include <chrono>

#include "agent/sessions/session_problem.h"
#include "agent/shared_state/token_openapi.h"
#include "agent/shared_state/token_scopes.h"
#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::shared_state {

namespace {

using sessions::problem;

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool principal_name(std::string_view s) {
    if (s.empty() || s.size() > 128) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '@' || c == ':' || c == '-';
    });
}

void write_time(json::Writer& w, std::string_view key, std::int64_t t) {
    w.key(key);
    if (t == 0)
        w.null();
    else
        w.int64(t);
}

void write_row(json::Writer& w, const TokenInfo& t, const std::string* secret) {
    w.begin_object();
    w.key("id");
    w.string(t.id);
    if (secret != nullptr) {
        w.key("token");
        w.string(*secret);
    }
    w.key("principal");
    w.string(t.principal);
    w.key("scopes");
    w.begin_array();
    for (std::string_view s : split_scopes(t.scopes))
        w.string(s);
    w.end_array();
    write_time(w, "createdAt", t.created_at);
    write_time(w, "expiresAt", t.expires_at);
    write_time(w, "lastUsedAt", t.last_used_at);
    write_time(w, "revokedAt", t.revoked_at);
    w.end_object();
}

Response row_response(const TokenInfo& t, const std::string* secret, int status) {
    std::string out;
    json::Writer w(out);
    write_row(w, t, secret);
    Response r = Response::json(std::move(out), status);
    r.with_header("Cache-Control", "no-store");
    return r;
}

Response store_problem(const base::Status& s) {
    if (s.is_not_found()) return problem(404, "no such token");
    if (s.is_resource_exhausted()) return problem(409, s.message());
    return problem(503, "the token store is unavailable").with_header("Retry-After", "1");
}

// 401 without credentials, 403 without a scope that administers tokens; empty Response status 0: allowed.
bool refuse_caller(Request& req, Responder& responder) {
    if (req.principal().empty()) {
        responder.send(problem(401, "token administration needs an authenticated principal")
                           .with_header("WWW-Authenticate", "Bearer"));
        return true;
    }
    for (std::string_view s : split_scopes(req.scopes()))
        if (s == "admin" || s.starts_with("tenant_admin:")) return false;
    responder.send(problem(403, "token administration needs the admin or a tenant_admin scope"));
    return true;
}

// The body of POST: principal, scopes (validated), expiry. False with the 422 sent.
bool parse_issue(std::string_view body, std::int64_t max_ttl, std::string& principal, std::string& scopes,
                 std::int64_t& ttl, Responder& responder) {
    base::Arena arena(1024);
    base::Result<const json::Value*> parsed = json::parse(body, arena);
    if (!parsed.is_ok() || !(*parsed)->is_object()) {
        responder.send(problem(422, "the body must be a JSON object"));
        return false;
    }
    const json::Value& o = **parsed;
    const json::Value* p = o.find("principal");
    if (p == nullptr || !p->is_string() || !principal_name(p->as_string())) {
        responder.send(problem(422, "principal: a string of [A-Za-z0-9._@:-]{1,128}"));
        return false;
    }
    principal = std::string(p->as_string());
    const json::Value* s = o.find("scopes");
    std::vector<std::string_view> list;
    if (s != nullptr && s->is_string()) {
        list = split_scopes(s->as_string());
    } else if (s != nullptr && s->is_array()) {
        for (const json::Value& item : s->items()) {
            if (!item.is_string()) {
                responder.send(problem(422, "scopes: every item must be a string"));
                return false;
            }
            list.push_back(item.as_string());
        }
    } else {
        responder.send(problem(422, "scopes: a list of scopes (admin, tenant_admin:<t>, read[:<t>], write[:<t>])"));
        return false;
    }
    if (list.empty() || list.size() > 64) {
        responder.send(problem(422, "scopes: between 1 and 64 scopes"));
        return false;
    }
    scopes.clear();
    for (std::string_view one : list) {
        if (!valid_scope(one)) {
            responder.send(problem(422, "scopes: \"" + std::string(one).substr(0, 80) +
                                            "\" is not a scope (admin, tenant_admin:<t>, read[:<t>], write[:<t>])"));
            return false;
        }
        if (!scopes.empty()) scopes.push_back(' ');
        scopes += one;
    }
    ttl = 0;
    if (const json::Value* e = o.find("expiresIn"); e != nullptr && !e->is_null()) {
        if (!e->is_integer() || e->as_int() < 1 || e->as_int() > max_ttl) {
            responder.send(problem(422, "expiresIn: whole seconds, 1.." + std::to_string(max_ttl)));
            return false;
        }
        ttl = e->as_int();
    }
    return true;
}

}  // namespace

std::string mount_token_routes(App& app, std::shared_ptr<TokenStore> tokens, const std::string& prefix,
                               const std::string& openapi_path) {
    app.route_async("POST", prefix, [tokens](Request& req, Responder responder) {
        if (refuse_caller(req, responder)) return;
        std::string principal, scopes;
        std::int64_t ttl = 0;
        if (!parse_issue(req.body(), tokens->options().max_ttl_s, principal, scopes, ttl, responder)) return;
        if (!may_administer(req.scopes(), scopes)) {
            responder.send(problem(403, "these scopes are beyond what this principal may grant"));
            return;
        }
        const std::int64_t now = unix_now();
        auto shared = std::make_shared<Responder>(std::move(responder));
        tokens->issue(std::move(principal), std::move(scopes), ttl == 0 ? 0 : now + ttl, now,
                      [shared](base::Result<std::pair<TokenInfo, std::string>> issued) {
                          if (!issued.is_ok()) {
                              shared->send(store_problem(issued.status()));
                              return;
                          }
                          shared->send(row_response(issued->first, &issued->second, 201));
                      });
    });
    app.route_async("GET", prefix, [tokens](Request& req, Responder responder) {
        if (refuse_caller(req, responder)) return;
        auto shared = std::make_shared<Responder>(std::move(responder));
        tokens->list([shared, holder = std::string(req.scopes())](base::Result<std::vector<TokenInfo>> list) {
            if (!list.is_ok()) {
                shared->send(store_problem(list.status()));
                return;
            }
            std::string out;
            json::Writer w(out);
            w.begin_object();
            w.key("tokens");
            w.begin_array();
            for (const TokenInfo& t : *list)
                if (may_administer(holder, t.scopes)) write_row(w, t, nullptr);
            w.end_array();
            w.end_object();
            shared->send(Response::json(std::move(out)));
        });
    });
    app.route_async("GET", prefix + "/{id}", [tokens](Request& req, Responder responder) {
        if (refuse_caller(req, responder)) return;
        auto shared = std::make_shared<Responder>(std::move(responder));
        tokens->list([shared, holder = std::string(req.scopes()),
                      id = std::string(req.path_param("id").value_or(""))](base::Result<std::vector<TokenInfo>> list) {
            if (!list.is_ok()) {
                shared->send(store_problem(list.status()));
                return;
            }
            for (const TokenInfo& t : *list)
                if (t.id == id && may_administer(holder, t.scopes)) {
                    shared->send(row_response(t, nullptr, 200));
                    return;
                }
            shared->send(problem(404, "no such token"));
        });
    });
    app.route_async("DELETE", prefix + "/{id}", [tokens](Request& req, Responder responder) {
        if (refuse_caller(req, responder)) return;
        auto shared = std::make_shared<Responder>(std::move(responder));
        // Looked up first: a tenant admin may revoke only the tokens it may see.
        tokens->list([tokens, shared, holder = std::string(req.scopes()),
                      id = std::string(req.path_param("id").value_or(""))](base::Result<std::vector<TokenInfo>> list) {
            if (!list.is_ok()) {
                shared->send(store_problem(list.status()));
                return;
            }
            auto it = std::find_if(list->begin(), list->end(), [&](const TokenInfo& t) { return t.id == id; });
            if (it == list->end() || !may_administer(holder, it->scopes)) {
                shared->send(problem(404, "no such token"));
                return;
            }
            tokens->revoke(id, unix_now(), [shared](base::Result<TokenInfo> revoked) {
                if (!revoked.is_ok()) {
                    shared->send(store_problem(revoked.status()));
                    return;
                }
                shared->send(row_response(*revoked, nullptr, 200));
            });
        });
    });
    std::string doc = token_openapi_document(prefix);
    if (!openapi_path.empty()) app.get(openapi_path, [doc](Request&) { return Response::json(doc); });
    return doc;
}

}  // namespace slipstream::agent::shared_state
