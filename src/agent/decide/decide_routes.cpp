// mount_decide_routes(): route specs (JSON Schema of bodies and parameters) and the handlers that call the store.
#include "agent/decide/decide_routes.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

#include "agent/decide/decide_json.h"
#include "agent/decide/decide_metrics.h"
#include "agent/decide/decide_openapi.h"
#include "agent/decide/decide_problem.h"
#include "agent/decide/decide_route_docs.h"
#include "agent/decide/yaml_json.h"
#include "agent/sessions/session_problem.h"
#include "agent/shared_state/token_scopes.h"
#include "slipstream/json.h"

namespace slipstream::agent::decide {

namespace {

constexpr const char* kNameSchema = R"({"type":"string","pattern":"^[A-Za-z0-9._-]{1,64}$"})";
constexpr const char* kAnonymous = "anonymous";
constexpr const char* kCapsulePath = "/v1/tenants/{tenant}/jobs/{job}/capsules/{capsule}";

std::string decide_schema(std::size_t max_actions) {
    const std::string id = R"({"type":"string","minLength":1,"maxLength":128})";
    const std::string ids = R"({"type":"array","maxItems":)" + std::to_string(max_actions) + R"(,"items":)" + id + "}";
    // An action: its id, or {id, features} with the features this request gives it (the shared learner's).
    const std::string actions = R"({"type":"array","maxItems":)" + std::to_string(max_actions) +
                                R"(,"items":{"anyOf":[)" + id + R"(,{"type":"object","properties":{"id":)" + id +
                                R"(,"features":{"type":"object"}},"required":["id"],"additionalProperties":false}]}})";
    return R"({"type":"object","properties":{"context":{"type":"object"},"actions":)" + actions + R"(,"excluded":)" +
           ids +
           R"(,"baselineAction":{"type":"string","minLength":1,"maxLength":128},)"
           R"("eventId":{"type":"string","minLength":1,"maxLength":255}},"additionalProperties":false})";
}

std::string reward_schema(std::size_t max_components) {
    return R"({"type":"object","properties":{"decisionId":{"type":"string","minLength":1,"maxLength":64},)"
           R"("reward":{"type":"number"},"components":{"type":"object","maxProperties":)" +
           std::to_string(max_components) +
           R"(,"additionalProperties":{"type":"number"}},)"
           R"("idempotencyKey":{"type":"string","minLength":1,"maxLength":255}},"required":["decisionId"],)"
           R"("additionalProperties":false})";
}

std::string batch_schema(const char* member, const std::string& item, std::size_t max) {
    return std::string(R"({"type":"object","properties":{")") + member +
           R"(":{"type":"array","minItems":1,"maxItems":)" + std::to_string(max) + R"(,"items":)" + item +
           R"(}},"required":[")" + member + R"("],"additionalProperties":false})";
}

// A path parameter, or an optional query or header parameter with its default.
ParamSpec path(std::string name, std::string schema) {
    return ParamSpec{.name = std::move(name),
                     .alias = "",
                     .source = ParamSource::kPath,
                     .schema_json = std::move(schema),
                     .required = true,
                     .default_json = ""};
}
ParamSpec optional(ParamSource source, std::string name, std::string alias, std::string schema,
                   std::string default_json) {
    return ParamSpec{.name = std::move(name),
                     .alias = std::move(alias),
                     .source = source,
                     .schema_json = std::move(schema),
                     .required = false,
                     .default_json = std::move(default_json)};
}

std::vector<ParamSpec> capsule_params() {
    return {path("tenant", kNameSchema), path("job", kNameSchema), path("capsule", kNameSchema)};
}

RouteSpec spec(std::vector<ParamSpec> extra, std::optional<std::string> body_schema = std::nullopt) {
    RouteSpec r;
    r.params = capsule_params();
    for (ParamSpec& p : extra)
        r.params.push_back(std::move(p));
    if (body_schema) {
        BodySpec b;
        b.schema_json = std::move(*body_schema);
        b.required = false;
        b.default_json = "{}";
        r.body.push_back(std::move(b));
    }
    r.forward_errors = true;  // answered as problem+json, like every other error of these routes
    return r;
}

std::vector<std::string> strings(JsonView list) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < list.size(); ++i)
        out.emplace_back(list.at(i).as_string());
    return out;
}

DecideRequest decide_request(JsonView b) {
    DecideRequest r;
    if (b.has("context")) r.context_json = json_write(b.get("context"));
    JsonView actions = b.get("actions");
    std::string features;
    for (std::size_t i = 0; i < actions.size(); ++i) {
        JsonView a = actions.at(i);
        if (a.kind() == JsonView::Kind::kString) {
            r.only.emplace_back(a.as_string());
            continue;
        }
        r.only.emplace_back(a.get("id").as_string());
        if (!a.has("features")) continue;
        if (std::count(r.only.begin(), r.only.end(), r.only.back()) > 1)
            r.invalid_pointer = "/actions/" + std::to_string(i);
        features += features.empty() ? "{" : ",";
        features += json_write(a.get("id")) + ":" + json_write(a.get("features"));
    }
    if (!features.empty()) r.features_json = features + "}";
    r.excluded = strings(b.get("excluded"));
    if (b.has("baselineAction")) r.baseline = std::string(b.get("baselineAction").as_string());
    if (b.has("eventId")) r.event_id = std::string(b.get("eventId").as_string());
    r.request_json = json_write(b);
    return r;
}

RewardRequest reward_request(JsonView b) {
    RewardRequest r;
    r.decision_id = std::string(b.get("decisionId").as_string());
    if (b.has("reward")) r.input.value = b.get("reward").as_double();
    JsonView c = b.get("components");
    for (std::size_t i = 0; i < c.size(); ++i) {
        auto [name, value] = c.member(i);
        r.input.components.emplace_back(std::string(name), value.as_double());
    }
    if (b.has("idempotencyKey")) r.key = std::string(b.get("idempotencyKey").as_string());
    r.request_json = json_write(b);
    return r;
}

// application/yaml, application/x-yaml, text/yaml, text/x-yaml, application/<...>+yaml (parameters ignored).
bool is_yaml(std::optional<std::string_view> content_type) {
    if (!content_type) return false;
    std::string t(content_type->substr(0, content_type->find(';')));
    while (!t.empty() && t.back() == ' ')
        t.pop_back();
    for (char& c : t)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return t == "application/yaml" || t == "application/x-yaml" || t == "text/yaml" || t == "text/x-yaml" ||
           (t.starts_with("application/") && t.ends_with("+yaml"));
}

// "203.0.113.5:4711" -> "203.0.113.5", "[2001:db8::1]:80" -> "[2001:db8::1]"; anything else as it is.
std::string client_host(const std::string& peer) {
    const std::size_t colon = peer.rfind(':');
    if (colon == std::string::npos || peer.find(']', colon) != std::string::npos) return peer;
    return peer.substr(0, colon);
}

// The 429 of a refused decision or reward, with the rate-limit fields the engine's own limit sends.
Response too_many(const policy::ratelimit::Decision& d, const char* what) {
    const policy::ratelimit::HeaderValues v = policy::ratelimit::header_values(d);
    return sessions::problem(429, std::string("too many ") + what + " for this principal; retry later")
        .with_header("Retry-After", std::to_string(v.retry_after_s))
        .with_header("RateLimit-Limit", std::to_string(v.limit))
        .with_header("RateLimit-Remaining", std::to_string(v.remaining))
        .with_header("RateLimit-Reset", std::to_string(v.reset_s));
}

// Collects the answers of a batch in request order and sends {"results":[{"status","body"}]} after the last.
class Batch {
  public:
    Batch(std::size_t n, std::shared_ptr<Responder> responder)
        : results_(n), left_(n), responder_(std::move(responder)) {}

    void answer(std::size_t i, int status, std::string body) {
        std::string item = "{\"status\":" + std::to_string(status) + ",\"body\":" + body + "}";
        std::lock_guard<std::mutex> lock(mutex_);
        results_[i] = std::move(item);
        if (--left_ > 0) return;
        std::string out = "{\"results\":[";
        for (std::size_t k = 0; k < results_.size(); ++k) {
            if (k > 0) out += ",";
            out += results_[k];
        }
        out += "]}";
        responder_->send(Response::json(std::move(out)));
    }
    // Answers item `i` 429: past the principal's decision (reward) limit.
    void refuse(std::size_t i, const policy::ratelimit::Decision& d, const char* what) {
        Response r = too_many(d, what);
        answer(i, r.status, std::string(r.body_bytes()));
    }
    void failed(std::size_t i, const DecideError& e) {
        Response r = decide_problem(e);
        answer(i, r.status, std::string(r.body_bytes()));
    }

  private:
    std::mutex mutex_;
    std::vector<std::string> results_;
    std::size_t left_;
    std::shared_ptr<Responder> responder_;
};

// Observes the time from `start` to now in `h`.
class Timer {
  public:
    explicit Timer(DurationHistogram h) : h_(h), start_(std::chrono::steady_clock::now()) {}
    void observe() const {
        h_.observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    }

  private:
    DurationHistogram h_;
    std::chrono::steady_clock::time_point start_;
};

// Who asks, about which capsule, and where the answer goes.
struct Call {
    std::string principal;
    CapsuleRef ref;
    std::shared_ptr<Responder> responder;
    std::string rate_key;  // the principal, or the client's address when anonymous

    template <typename T, typename Ok>
    DecideCallback<T> answer(Ok ok) const {
        return [responder = responder, ok](DecideResult<T> r) {
            responder->send(r.is_ok() ? ok(r.value()) : decide_problem(r.error()));
        };
    }
};

class Routes {
  public:
    Routes(App& app, std::shared_ptr<DecideStore> store, DecideRoutesOptions options)
        : app_(app), store_(std::move(store)), options_(std::move(options)), auth_on_(app.options().auth != "off") {}

    std::string mount() {
        if (options_.metrics) latency_ = register_decide_metrics(app_, store_, options_.metrics_capsules);
        mount_spec();
        mount_decide();
        mount_reward();
        mount_reads();
        mount_evaluation();
        std::string doc = openapi_document(ops_, options_.openapi_title, options_.openapi_version);
        if (!options_.openapi_path.empty())
            app_.get(options_.openapi_path, [doc](Request&) { return Response::json(doc); });
        return doc;
    }

  private:
    void mount_spec();
    void mount_decide();
    void mount_reward();
    void mount_reads();
    void mount_evaluation();  // POST .../evaluate and .../promote

    // Registers `method <capsule>/suffix` and records it for the OpenAPI document; the handler runs with a
    // principal and the capsule's names.
    // Routes that change what is learned (reward, spec, promote) need write access; the others read access.
    template <typename Handler>
    void add(std::string_view method, std::string_view suffix, RouteSpec route, OperationDoc doc, Handler handler) {
        auto store = store_;
        const bool auth_on = auth_on_;
        const bool learns = method == "PUT" || suffix.starts_with("/reward") || suffix == "/promote";
        const AccessLevel need = learns ? AccessLevel::kWrite : AccessLevel::kRead;
        std::shared_ptr<const DecideAccess> access = options_.access;
        doc.method = std::string(method);
        doc.path = options_.prefix + kCapsulePath + std::string(suffix);
        doc.route = route;
        if (auth_on) doc.problems.push_back(401);
        doc.problems.push_back(403);
        if (options_.rate_limits && (suffix.starts_with("/decide") || suffix.starts_with("/reward")))
            doc.problems.push_back(429);
        ops_.push_back(std::move(doc));
        app_.route_async(
            method, options_.prefix + kCapsulePath + std::string(suffix),
            [store, auth_on, handler, access, need](Request& req, Responder responder) {
                Call call{"", {}, std::make_shared<Responder>(std::move(responder)), ""};
                if (!req.principal().empty()) {
                    call.principal = std::string(req.principal());
                } else if (!auth_on) {
                    call.principal = kAnonymous;
                } else {
                    call.responder->send(sessions::problem(401, "decisions need an authenticated principal")
                                             .with_header("WWW-Authenticate", "Bearer"));
                    return;
                }
                JsonView forwarded = req.arguments().get(kForwardedErrorsKey);
                if (!forwarded.is_null()) {
                    call.responder->send(sessions::validation_problem(forwarded.as_string()));
                    return;
                }
                JsonView a = req.arguments();
                call.ref = CapsuleRef{std::string(a.get("tenant").as_string()), std::string(a.get("job").as_string()),
                                      std::string(a.get("capsule").as_string())};
                // A credential whose scopes name these grants (an issued token, a JWT with read/write/... scopes) is
                // granted what they name; others (no scopes, or only foreign ones) what the access file says.
                const bool scoped = req.scoped() && shared_state::names_access_scope(req.scopes());
                const AccessLevel has = scoped   ? scoped_level(req.scopes(), call.ref.tenant)
                                        : access ? access->level(call.principal, call.ref.tenant)
                                                 : AccessLevel::kWrite;
                if (has < need) {
                    call.responder->send(sessions::problem(
                        403, has == AccessLevel::kRead
                                 ? "\"" + call.principal + "\" may decide and read on tenant \"" + call.ref.tenant +
                                       "\" but not learn (reward, spec changes, promotion)"
                                 : "\"" + call.principal + "\" has no access to tenant \"" + call.ref.tenant + "\""));
                    return;
                }
                call.rate_key = call.principal == kAnonymous ? client_host(req.peer()) : call.principal;
                handler(*store, req, std::move(call));
            },
            std::move(route));
    }

    App& app_;
    std::shared_ptr<DecideStore> store_;
    DecideRoutesOptions options_;
    bool auth_on_;
    DecideLatency latency_;
    std::vector<OperationDoc> ops_;
};

// `"7"` or `7` -> 7; absent -> nullopt; anything else -> `valid` false.
std::optional<std::int64_t> parse_version(JsonView header, bool& valid) {
    valid = true;
    if (header.is_null()) return std::nullopt;
    std::string_view v = header.as_string();
    if (v == "*") return std::nullopt;
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    std::int64_t version = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
    valid = !v.empty() && ec == std::errc() && end == v.data() + v.size() && version >= 0;
    return version;
}

void Routes::mount_spec() {
    add("GET", "/spec", spec({}), route_docs::get_spec(), [](DecideStore& store, Request&, Call call) {
        DecideResult<SpecAnswer> a = store.get_spec(call.ref);
        call.responder->send(a.is_ok() ? Response::json(spec_answer_json(a.value()))
                                             .with_header("ETag", "\"" + std::to_string(a.value().version) + "\"")
                                       : decide_problem(a.error()));
    });
    add("PUT", "/spec",
        spec({optional(ParamSource::kHeader, "if_match", "If-Match", R"({"type":"string","maxLength":32})", "null")},
             std::string("{}")),
        route_docs::put_spec(), [](DecideStore& store, Request& req, Call call) {
            JsonView a = req.arguments();
            bool valid = true;
            std::optional<std::int64_t> expected = parse_version(a.get("if_match"), valid);
            if (!valid) {
                call.responder->send(sessions::problem(400, "If-Match must be a spec version in quotes, e.g. \"3\""));
                return;
            }
            std::string patch;
            if (is_yaml(req.header("content-type"))) {
                if (!yaml_supported()) {
                    call.responder->send(sessions::problem(415, "this server reads specs as JSON only"));
                    return;
                }
                YamlMark mark;
                base::Result<std::string> converted = yaml_to_json(req.body(), 64, &mark);
                if (!converted.is_ok()) {
                    call.responder->send(with_members(
                        400, "the YAML spec: " + converted.status().message(),
                        ",\"line\":" + std::to_string(mark.line) + ",\"column\":" + std::to_string(mark.column)));
                    return;
                }
                patch = std::move(converted).value();
            } else {
                patch = json_write(a.get("body"));
            }
            store.put_spec(call.principal, call.ref, std::move(patch), expected,
                           call.answer<SpecAnswer>([](const SpecAnswer& s) {
                               return Response::json(spec_answer_json(s), s.created ? 201 : 200)
                                   .with_header("ETag", "\"" + std::to_string(s.version) + "\"");
                           }));
        });
}

void Routes::mount_decide() {
    const DecideLimits& limits = store_->limits();
    const std::string one = decide_schema(limits.spec.max_actions);
    const DurationHistogram latency = latency_.decide;
    const std::shared_ptr<DecideRateLimits> rates = options_.rate_limits;
    add("POST", "/decide", spec({}, one), route_docs::decide(),
        [latency, rates](DecideStore& store, Request& req, Call call) {
            Timer timer(latency);
            auto run = [timer](DecideStore& store, const Call& call, DecideRequest body) {
                store.decide(call.principal, call.ref, std::move(body),
                             call.answer<DecideAnswer>([timer](const DecideAnswer& d) {
                                 timer.observe();
                                 Response r = Response::json(d.json);
                                 if (d.replayed) r.with_header("Idempotent-Replayed", "true");
                                 return r;
                             }));
            };
            DecideRequest body = decide_request(req.arguments().get("body"));
            if (!rates) return run(store, call, std::move(body));
            // The limit first (in the shared store, when there is one: the answer may come on its thread).
            rates->take_decisions(call.rate_key, 1,
                                  [self = store.shared_from_this(), call, run, body = std::move(body)](
                                      std::uint32_t allowed, const policy::ratelimit::Decision& d) mutable {
                                      if (allowed == 0)
                                          call.responder->send(too_many(d, "decisions"));
                                      else
                                          run(*self, call, std::move(body));
                                  });
        });
    add("POST", "/decide/batch", spec({}, batch_schema("requests", one, limits.max_batch)), route_docs::decide_batch(),
        [latency, rates](DecideStore& store, Request& req, Call call) {
            Timer timer(latency);
            JsonView list = req.arguments().get("body").get("requests");
            auto bodies = std::make_shared<std::vector<DecideRequest>>();
            for (std::size_t i = 0; i < list.size(); ++i)
                bodies->push_back(decide_request(list.at(i)));
            auto run = [timer, bodies](DecideStore& store, const Call& call, std::uint32_t allowed,
                                       const policy::ratelimit::Decision& refusal) {
                auto batch = std::make_shared<Batch>(bodies->size(), call.responder);
                for (std::size_t i = 0; i < bodies->size(); ++i) {
                    if (i >= allowed) {
                        batch->refuse(i, refusal, "decisions");
                        continue;
                    }
                    store.decide(call.principal, call.ref, std::move((*bodies)[i]),
                                 [batch, i, timer](DecideResult<DecideAnswer> r) {
                                     timer.observe();
                                     if (r.is_ok()) return batch->answer(i, 200, r.value().json);
                                     batch->failed(i, r.error());
                                 });
                }
            };
            const auto n = static_cast<std::uint32_t>(bodies->size());
            if (!rates) return run(store, call, n, {});
            // One count for the whole batch: its first items up to the limit are decided, the rest answered 429.
            rates->take_decisions(
                call.rate_key, n,
                [self = store.shared_from_this(), call, run](
                    std::uint32_t allowed, const policy::ratelimit::Decision& d) { run(*self, call, allowed, d); });
        });
}

void Routes::mount_reward() {
    const DecideLimits& limits = store_->limits();
    const std::string one = reward_schema(limits.spec.max_components);
    const DurationHistogram latency = latency_.reward;
    const std::shared_ptr<DecideRateLimits> rates = options_.rate_limits;
    add("POST", "/reward", spec({}, one), route_docs::reward(),
        [latency, rates](DecideStore& store, Request& req, Call call) {
            Timer timer(latency);
            auto run = [timer](DecideStore& store, const Call& call, RewardRequest body) {
                store.reward(call.principal, call.ref, std::move(body),
                             call.answer<JsonAnswer>([timer](const JsonAnswer& a) {
                                 timer.observe();
                                 return Response::json(a.json);
                             }));
            };
            RewardRequest body = reward_request(req.arguments().get("body"));
            if (!rates) return run(store, call, std::move(body));
            rates->take_rewards(call.rate_key, 1,
                                [self = store.shared_from_this(), call, run, body = std::move(body)](
                                    std::uint32_t allowed, const policy::ratelimit::Decision& d) mutable {
                                    if (allowed == 0)
                                        call.responder->send(too_many(d, "rewards"));
                                    else
                                        run(*self, call, std::move(body));
                                });
        });
    add("POST", "/reward/batch", spec({}, batch_schema("rewards", one, limits.max_batch)), route_docs::reward_batch(),
        [latency, rates](DecideStore& store, Request& req, Call call) {
            Timer timer(latency);
            JsonView list = req.arguments().get("body").get("rewards");
            auto bodies = std::make_shared<std::vector<RewardRequest>>();
            for (std::size_t i = 0; i < list.size(); ++i)
                bodies->push_back(reward_request(list.at(i)));
            auto run = [timer, bodies](DecideStore& store, const Call& call, std::uint32_t allowed,
                                       const policy::ratelimit::Decision& refusal) {
                auto batch = std::make_shared<Batch>(bodies->size(), call.responder);
                for (std::size_t i = 0; i < bodies->size(); ++i) {
                    if (i >= allowed) {
                        batch->refuse(i, refusal, "rewards");
                        continue;
                    }
                    store.reward(call.principal, call.ref, std::move((*bodies)[i]),
                                 [batch, i, timer](DecideResult<JsonAnswer> r) {
                                     timer.observe();
                                     if (r.is_ok()) return batch->answer(i, 200, r.value().json);
                                     batch->failed(i, r.error());
                                 });
                }
            };
            const auto n = static_cast<std::uint32_t>(bodies->size());
            if (!rates) return run(store, call, n, {});
            rates->take_rewards(
                call.rate_key, n,
                [self = store.shared_from_this(), call, run](
                    std::uint32_t allowed, const policy::ratelimit::Decision& d) { run(*self, call, allowed, d); });
        });
}

void Routes::mount_reads() {
    const std::string page =
        R"({"type":"integer","minimum":1,"maximum":)" + std::to_string(store_->limits().max_page) + "}";
    const std::string time = R"({"type":"integer","minimum":0,"maximum":9223372036854775807})";
    add("GET", "/decisions",
        spec({optional(ParamSource::kQuery, "limit", "", page, std::to_string(options_.default_page)),
              optional(ParamSource::kQuery, "after", "", R"({"type":"string","maxLength":128})", R"("")"),
              optional(ParamSource::kQuery, "from", "", time, "0"),
              optional(ParamSource::kQuery, "to", "", time, "null"),
              optional(ParamSource::kQuery, "format", "", R"({"enum":["json","jsonl"]})", R"("json")")}),
        route_docs::decisions(), [](DecideStore& store, Request& req, Call call) {
            JsonView a = req.arguments();
            DecisionQuery q;
            q.limit = static_cast<std::size_t>(a.get("limit").as_int());
            q.after = std::string(a.get("after").as_string());
            q.from_ms = a.get("from").as_int();
            if (!a.get("to").is_null()) q.to_ms = a.get("to").as_int();
            q.lines = a.get("format").as_string() == "jsonl";
            const bool lines = q.lines;
            store.list_decisions(call.ref, std::move(q), call.answer<JsonAnswer>([lines](const JsonAnswer& p) {
                if (!lines) return Response::json(p.json);
                // The export: one decision per line; the next page's cursor in a field.
                Response r(200);
                r.body = p.json;
                r.content_type = "application/jsonl";
                if (!p.next.empty()) r.with_header("Decide-Next", p.next);
                return r;
            }));
        });
    add("GET", "/decisions/{id}", spec({path("id", R"({"type":"string","minLength":1,"maxLength":64})")}),
        route_docs::decision(), [](DecideStore& store, Request& req, Call call) {
            store.get_decision(call.ref, std::string(req.arguments().get("id").as_string()),
                               call.answer<JsonAnswer>([](const JsonAnswer& d) { return Response::json(d.json); }));
        });
    add("GET", "/model",
        spec({optional(ParamSource::kHeader, "if_none_match", "If-None-Match", R"({"type":"string","maxLength":128})",
                       "null")}),
        route_docs::model(), [](DecideStore& store, Request& req, Call call) {
            DecideResult<JsonAnswer> m = store.model(call.ref);
            if (!m.is_ok()) {
                call.responder->send(decide_problem(m.error()));
                return;
            }
            JsonView inm = req.arguments().get("if_none_match");
            if (!inm.is_null() && inm.as_string() == m.value().etag) {
                call.responder->send(Response(304).with_header("ETag", m.value().etag));
                return;
            }
            call.responder->send(Response::json(m.value().json).with_header("ETag", m.value().etag));
        });
}

std::string evaluate_schema(std::size_t max_resamples) {
    const std::string count = R"({"type":"integer","minimum":0,"maximum":9223372036854775807})";
    return R"({"type":"object","properties":{"spec":{"type":"object"},"from":)" + count + R"(,"to":)" + count +
           R"(,"resamples":{"type":"integer","minimum":0,"maximum":)" + std::to_string(max_resamples) + R"(},"seed":)" +
           count +
           R"(,"minSamples":{"type":"integer","minimum":1,"maximum":1000000000}},)"
           R"("additionalProperties":false})";
}

EvaluateRequest evaluate_request(JsonView b) {
    EvaluateRequest r;
    if (b.has("spec")) r.patch_json = json_write(b.get("spec"));
    if (b.has("from")) r.from_ms = b.get("from").as_int();
    if (b.has("to")) r.to_ms = b.get("to").as_int();
    if (b.has("resamples")) r.resamples = static_cast<std::size_t>(b.get("resamples").as_int());
    if (b.has("seed")) r.seed = static_cast<std::uint64_t>(b.get("seed").as_int());
    if (b.has("minSamples")) r.min_samples = static_cast<std::size_t>(b.get("minSamples").as_int());
    return r;
}

void Routes::mount_evaluation() {
    const std::string schema = evaluate_schema(store_->limits().max_resamples);
    add("POST", "/evaluate", spec({}, schema), route_docs::evaluate(), [](DecideStore& store, Request& req, Call call) {
        store.evaluate(call.ref, evaluate_request(req.arguments().get("body")),
                       call.answer<JsonAnswer>([](const JsonAnswer& a) { return Response::json(a.json); }));
    });
    add("POST", "/promote", spec({}, schema), route_docs::promote(), [](DecideStore& store, Request& req, Call call) {
        store.promote(call.principal, call.ref, evaluate_request(req.arguments().get("body")),
                      call.answer<JsonAnswer>([](const JsonAnswer& a) { return Response::json(a.json); }));
    });
}

}  // namespace

std::string mount_decide_routes(App& app, std::shared_ptr<DecideStore> store, DecideRoutesOptions options) {
    return Routes(app, std::move(store), std::move(options)).mount();
}

}  // namespace slipstream::agent::decide
