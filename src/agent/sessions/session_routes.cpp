// mount_session_routes(): route specs (JSON Schema of bodies and parameters) and the handlers that call the store.
#include "agent/sessions/session_routes.h"

#include <charconv>
#include <optional>
#include <utility>

#include "agent/sessions/session_follow.h"
#include "agent/sessions/session_id.h"
#include "agent/sessions/session_json.h"
#include "agent/sessions/session_metrics.h"
#include "agent/sessions/session_openapi.h"
#include "agent/sessions/session_problem.h"
#include "slipstream/json.h"

namespace slipstream::agent::sessions {

namespace {

constexpr const char* kEventSchema =
    R"({"type":"object","properties":{"role":{"type":"string","minLength":1,"maxLength":64},"content":{}},)"
    R"("required":["role","content"],"additionalProperties":false})";

// What every handler starts from: who asks, about which session, and where the answer goes.
struct Call {
    std::string principal;
    std::string id;
    std::shared_ptr<Responder> responder;
};

ParamSpec param(ParamSource source, std::string name, std::string alias, std::string schema, bool required,
                std::string default_json) {
    ParamSpec p;
    p.name = std::move(name);
    p.alias = std::move(alias);
    p.source = source;
    p.schema_json = std::move(schema);
    p.required = required;
    p.default_json = std::move(default_json);
    return p;
}

ParamSpec path_id() {
    return param(ParamSource::kPath, "id", "", R"({"type":"string"})", true, "");
}

ParamSpec query_param(std::string name, std::string schema, std::string default_json) {
    return param(ParamSource::kQuery, std::move(name), "", std::move(schema), false, std::move(default_json));
}

ParamSpec header_param(std::string name, std::string alias, std::string schema) {
    return param(ParamSource::kHeader, std::move(name), std::move(alias), std::move(schema), false, "null");
}

BodySpec body(std::string schema, bool required = true) {
    BodySpec b;
    b.schema_json = std::move(schema);
    b.required = required;
    b.default_json = "{}";
    return b;
}

RouteSpec spec(std::vector<ParamSpec> params, std::vector<BodySpec> bodies = {}) {
    RouteSpec r;
    r.params = std::move(params);
    r.body = std::move(bodies);
    r.forward_errors = true;  // answered as problem+json below, like every other error of these routes
    return r;
}

std::string limit_schema(std::size_t max) {
    return R"({"type":"integer","minimum":1,"maximum":)" + std::to_string(max) + "}";
}

// Who the request acts as, or the 401 to answer.
std::optional<std::string> principal_of(Request& req, bool auth_on) {
    if (!req.principal().empty()) return std::string(req.principal());
    if (!auth_on) return std::string(kAnonymousPrincipal);
    return std::nullopt;
}

// `"7"` or `7` -> 7; `*` -> no condition; anything else -> a 400. `present` is false without the header.
struct Precondition {
    std::optional<std::int64_t> version;
    bool valid = true;
};

Precondition parse_if_match(JsonView header) {
    if (header.is_null()) return {};
    std::string_view v = header.as_string();
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
        v.remove_suffix(1);
    if (v == "*") return {};
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    std::int64_t version = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || version < 0) return {std::nullopt, false};
    return {version, true};
}

Response state_response(const StateDocument& doc) {
    return Response::json(doc.state_json).with_header("ETag", state_etag(doc.version));
}

// Sends `ok(value)` or the error's problem.
template <typename T, typename Ok>
SessionCallback<T> answer(std::shared_ptr<Responder> responder, Ok ok) {
    return [responder, ok](SessionResult<T> result) {
        responder->send(result.is_ok() ? ok(result.value()) : problem_for(result.error()));
    };
}

class Routes {
  public:
    Routes(App& app, std::shared_ptr<SessionStore> store, SessionRoutesOptions options)
        : app_(app), store_(std::move(store)), options_(std::move(options)), auth_on_(app.options().auth != "off") {}

    std::string mount() {
        mount_collection();
        mount_session();
        mount_events();
        mount_state();
        if (options_.metrics) register_session_metrics(app_, store_);
        std::string doc = openapi_document(ops_, "Agent sessions", "1", "sessions");
        if (!options_.openapi_path.empty())
            app_.get(options_.openapi_path, [doc](Request&) { return Response::json(doc); });
        return doc;
    }

  private:
    void mount_collection();  // POST, GET and DELETE /sessions
    void mount_session();     // GET and DELETE /sessions/{id}
    void mount_events();      // POST and GET /sessions/{id}/events
    void mount_state();       // GET, PUT and PATCH /sessions/{id}/state

    // Registers `method prefix+suffix` with `spec`; the handler runs with a resolved principal and, for routes
    // under {id}, a well-formed id (a malformed one is an unknown session).
    template <typename Handler>
    void add(std::string_view method, std::string_view suffix, RouteSpec spec, Handler handler) {
        OperationDoc doc = session_operation_doc(method, suffix);
        doc.method = std::string(method);
        doc.path = options_.prefix + std::string(suffix);
        doc.route = spec;
        ops_.push_back(std::move(doc));
        const bool has_id = suffix.find("{id}") != std::string_view::npos;
        auto store = store_;
        const bool auth_on = auth_on_;
        app_.route_async(
            method, options_.prefix + std::string(suffix),
            [store, auth_on, has_id, handler](Request& req, Responder responder) {
                Call call{"", "", std::make_shared<Responder>(std::move(responder))};
                std::optional<std::string> principal = principal_of(req, auth_on);
                if (!principal) {
                    call.responder->send(problem(401, "sessions need an authenticated principal")
                                             .with_header("WWW-Authenticate", "Bearer"));
                    return;
                }
                call.principal = std::move(*principal);
                JsonView forwarded = req.arguments().get(kForwardedErrorsKey);
                if (!forwarded.is_null()) {
                    call.responder->send(validation_problem(forwarded.as_string()));
                    return;
                }
                if (has_id) {
                    call.id = std::string(req.path_param("id").value_or(""));
                    if (!is_session_id(call.id)) {
                        call.responder->send(problem_for(SessionError::not_found()));
                        return;
                    }
                }
                handler(*store, req, std::move(call));
            },
            std::move(spec));
    }

    App& app_;
    std::shared_ptr<SessionStore> store_;
    SessionRoutesOptions options_;
    bool auth_on_;
    std::vector<OperationDoc> ops_;  // the OpenAPI description of each route added
};

void Routes::mount_collection() {
    const std::string page = limit_schema(options_.max_page);
    const std::string default_page = std::to_string(options_.default_page);
    const std::string prefix = options_.prefix;

    add("POST", "",
        spec({}, {body(R"({"type":"object","properties":{"metadata":{"type":"object"},"state":{},)"
                       R"("ttl_ms":{"type":"integer","minimum":1}},"additionalProperties":false})",
                       false)}),
        [prefix](SessionStore& store, Request& req, Call call) {
            JsonView b = req.arguments().get("body");
            NewSession s;
            if (b.has("metadata")) s.metadata_json = json_write(b.get("metadata"));
            if (b.has("state")) s.state_json = json_write(b.get("state"));
            if (b.has("ttl_ms"))
                s.ttl_ms = b.get("ttl_ms").kind() == JsonView::Kind::kInt ? b.get("ttl_ms").as_int() : -1;
            store.create(call.principal, std::move(s),
                         answer<SessionInfo>(call.responder, [prefix](const SessionInfo& i) {
                             return Response::json(session_json(i), 201).with_header("Location", prefix + "/" + i.id);
                         }));
        });
    add("GET", "",
        spec({query_param("after", R"({"type":"string","maxLength":64})", R"("")"),
              query_param("limit", page, default_page)}),
        [](SessionStore& store, Request& req, Call call) {
            JsonView a = req.arguments();
            store.list(call.principal, std::string(a.get("after").as_string()),
                       static_cast<std::size_t>(a.get("limit").as_int()),
                       answer<SessionPage>(call.responder,
                                           [](const SessionPage& p) { return Response::json(session_page_json(p)); }));
        });
    add("DELETE", "", spec({}), [](SessionStore& store, Request&, Call call) {
        store.erase_principal(call.principal, answer<std::int64_t>(call.responder, [](const std::int64_t& n) {
                                  return Response::json(R"({"deleted":)" + std::to_string(n) + "}");
                              }));
    });
}

void Routes::mount_session() {
    add("GET", "/{id}", spec({path_id()}), [](SessionStore& store, Request&, Call call) {
        store.get(call.principal, call.id, answer<SessionInfo>(call.responder, [](const SessionInfo& i) {
                      return Response::json(session_json(i));
                  }));
    });
    add("DELETE", "/{id}", spec({path_id()}), [](SessionStore& store, Request&, Call call) {
        store.remove(call.principal, call.id, answer<Done>(call.responder, [](const Done&) { return Response(204); }));
    });
}

void Routes::mount_events() {
    const std::string page = limit_schema(options_.max_page);
    const std::string default_page = std::to_string(options_.default_page);
    add("POST", "/{id}/events",
        spec({path_id(),
              header_param("idempotency_key", "Idempotency-Key", R"({"type":"string","minLength":1,"maxLength":255})")},
             {body(std::string(R"({"type":"object","properties":{"role":{"type":"string","minLength":1,)"
                               R"("maxLength":64},"content":{},"events":{"type":"array","minItems":1,"items":)") +
                   kEventSchema +
                   R"(}},"additionalProperties":false,"oneOf":[{"required":["events"]},)"
                   R"({"required":["role","content"]}]})")}),
        [](SessionStore& store, Request& req, Call call) {
            JsonView a = req.arguments();
            JsonView b = a.get("body");
            std::vector<NewEvent> events;
            if (b.has("events")) {
                JsonView list = b.get("events");
                for (std::size_t i = 0; i < list.size(); ++i)
                    events.push_back(
                        {std::string(list.at(i).get("role").as_string()), json_write(list.at(i).get("content"))});
            } else {
                events.push_back({std::string(b.get("role").as_string()), json_write(b.get("content"))});
            }
            JsonView key = a.get("idempotency_key");
            store.append(call.principal, call.id, std::move(events), key.is_null() ? "" : std::string(key.as_string()),
                         answer<AppendResult>(call.responder, [](const AppendResult& r) {
                             return Response::json(append_json(r), r.replayed ? 200 : 201);
                         }));
        });
    add("GET", "/{id}/events",
        spec({path_id(), query_param("after", R"({"type":"integer","minimum":0})", "0"),
              query_param("limit", page, default_page), query_param("follow", R"({"type":"boolean"})", "false"),
              header_param("last_event_id", "Last-Event-ID", R"({"type":"string","maxLength":32})")}),
        [](SessionStore& store, Request& req, Call call) {
            JsonView a = req.arguments();
            std::int64_t after = a.get("after").as_int();
            if (a.get("follow").as_bool()) {
                // A reconnecting EventSource names the last seq it saw: that wins over ?after=.
                JsonView last = a.get("last_event_id");
                if (!last.is_null()) {
                    std::string_view v = last.as_string();
                    std::int64_t seq = 0;
                    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seq);
                    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || seq < 0) {
                        call.responder->send(problem(400, "Last-Event-ID must be an event seq"));
                        return;
                    }
                    after = seq;
                }
                follow_events(store.shared_from_this(), std::move(call.principal), std::move(call.id), after,
                              std::move(call.responder));
                return;
            }
            store.events(call.principal, call.id, after, static_cast<std::size_t>(a.get("limit").as_int()),
                         answer<EventPage>(call.responder, [after](const EventPage& p) {
                             return Response::json(event_page_json(p, after));
                         }));
        });
}

void Routes::mount_state() {
    add("GET", "/{id}/state", spec({path_id()}), [](SessionStore& store, Request&, Call call) {
        store.get_state(call.principal, call.id, answer<StateDocument>(call.responder, state_response));
    });
    for (const char* method : {"PUT", "PATCH"}) {
        const bool patch = std::string_view(method) == "PATCH";
        add(method, "/{id}/state",
            spec({path_id(), header_param("if_match", "If-Match", R"({"type":"string"})")}, {body("{}")}),
            [patch](SessionStore& store, Request& req, Call call) {
                JsonView a = req.arguments();
                Precondition condition = parse_if_match(a.get("if_match"));
                if (!condition.valid) {
                    call.responder->send(problem(400, "If-Match must be a state version in quotes, e.g. \"3\", or *"));
                    return;
                }
                std::string document = json_write(a.get("body"));
                auto done = answer<StateDocument>(call.responder, state_response);
                if (patch) {
                    store.patch_state(call.principal, call.id, std::move(document), condition.version, std::move(done));
                } else {
                    store.put_state(call.principal, call.id, std::move(document), condition.version, std::move(done));
                }
            });
    }
}

}  // namespace

std::string mount_session_routes(App& app, std::shared_ptr<SessionStore> store, SessionRoutesOptions options) {
    return Routes(app, std::move(store), std::move(options)).mount();
}

}  // namespace slipstream::agent::sessions
