// AccessPolicy: options -> Authenticator and RateLimiter; per request: credentials, then the principal's rate.
#include "server/conn/access_policy.h"

#include <netinet/in.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/hex.h"
#include "base/ows.h"
#include "policy/auth/auth_config_error.h"
#include "policy/auth/credentials.h"
#include "server/core/problem.h"

namespace slipstream::server {

namespace {

std::invalid_argument option_error(std::string_view option, std::string_view reason) {
    return std::invalid_argument(std::string(option) + ": " + std::string(reason));
}

std::string read_secret(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw option_error("jwt-secret-file", "cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    std::string secret = text.str();
    // A file written by `echo` ends with a newline that is not part of the secret.
    if (secret.ends_with("\r\n"))
        secret.resize(secret.size() - 2);
    else if (secret.ends_with('\n'))
        secret.pop_back();
    return secret;
}

policy::ratelimit::Rate parse_rate(std::string_view option, std::string_view text) {
    base::Result<policy::ratelimit::Rate> rate = policy::ratelimit::Rate::parse(text);
    if (!rate.is_ok()) throw option_error(option, rate.status().message());
    return *rate;
}

std::unique_ptr<const policy::auth::Authenticator> make_authenticator(const ServerOptions& o) {
    policy::auth::AuthenticatorConfig config;
    config.api_key_header = o.api_key_header;
    try {
        if (!o.api_keys_file.empty()) config.api_keys = policy::auth::ApiKeyStore::load_file(o.api_keys_file);
        policy::auth::JwtOptions jwt;
        jwt.issuer = o.jwt_issuer;
        jwt.audience = o.jwt_audience;
        jwt.leeway_seconds = o.jwt_leeway_ms / 1000;
        if (!o.jwt_secret_file.empty() && !o.jwt_public_key_file.empty())
            throw option_error("jwt-secret-file", "give either a secret or a public key, not both");
        if (!o.jwt_secret_file.empty())
            config.jwt = policy::auth::JwtVerifier::from_secret(read_secret(o.jwt_secret_file), jwt);
        else if (!o.jwt_public_key_file.empty())
            config.jwt = policy::auth::JwtVerifier::from_public_key_file(o.jwt_public_key_file, jwt);
        return std::make_unique<const policy::auth::Authenticator>(std::move(config));
    } catch (const policy::auth::AuthConfigError& e) {
        throw option_error("auth", e.what());
    }
}

}  // namespace

void AccessPolicy::check_resource_metadata(std::string_view url) {
    if (!url.starts_with("https://") && !url.starts_with("http://"))
        throw option_error("auth-resource-metadata", "must be an absolute http(s) URL");
    for (const char c : url)
        if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x21 || c == 0x7F)
            throw option_error("auth-resource-metadata", "must not hold quotes, backslashes, spaces or controls");
}

void AccessPolicy::set_resource_metadata(std::string_view url) {
    if (url.empty()) {
        challenge_ = "Bearer";
        invalid_challenge_ = R"(Bearer error="invalid_token")";
        return;
    }
    check_resource_metadata(url);
    challenge_ = "Bearer resource_metadata=\"" + std::string(url) + "\"";
    invalid_challenge_ = challenge_ + R"(, error="invalid_token")";
}

AccessPolicy::AccessPolicy(const ServerOptions& o, metrics::Registry& registry)
    : fastapi_style_(o.fastapi_route_errors), api_key_header_(o.api_key_header) {
    set_resource_metadata(o.auth_resource_metadata);
    if (o.auth == "off")
        mode_ = Mode::kOff;
    else if (o.auth == "optional")
        mode_ = Mode::kOptional;
    else if (o.auth == "required")
        mode_ = Mode::kRequired;
    else
        throw option_error("auth", "must be off, optional or required, not '" + o.auth + "'");
    bool credentials = !o.api_keys_file.empty() || !o.jwt_secret_file.empty() || !o.jwt_public_key_file.empty();
    if (mode_ == Mode::kOff && credentials)
        throw option_error("auth", "API keys or a JWT key are configured while auth is off (set optional or required)");
    if (mode_ == Mode::kOff && o.issued_credentials)
        throw option_error("auth", "issued tokens are configured while auth is off (set optional or required)");
    if (mode_ != Mode::kOff) {
        if (!credentials && !o.issued_credentials)
            throw option_error("auth",
                               "needs api-keys-file, jwt-secret-file or jwt-public-key-file (or issued tokens: "
                               "--tokens)");
        if (credentials) authenticator_ = make_authenticator(o);
        if (o.issued_credentials) {
            issued_ = o.issued_credentials;
            issued_prefix_ = std::string(issued_->prefix());
            if (issued_prefix_.empty()) throw option_error("auth", "issued tokens need a prefix");
        }
        metrics::CounterFamily& refused =
            registry.counter_family("slipstream_auth_refused_total",
                                    "Requests answered 401: no or invalid credentials, by reason.", {"reason"});
        for (std::size_t i = 0; i < kAuthErrorCount; ++i) {
            auto error = static_cast<policy::auth::AuthError>(i);
            refused_[i] =
                &refused.with({error == policy::auth::AuthError::kNone ? std::string_view("missing_credentials")
                                                                       : policy::auth::auth_error_code(error)});
        }
    }
    if (authenticator_ && authenticator_->api_keys()) {
        authenticator_->api_keys()->for_each_entry([&](const policy::auth::ApiKeyEntry& entry) {
            if (entry.rate.empty() || key_rates_.contains(entry.rate)) return;
            key_rates_.emplace(entry.rate, parse_rate("api-keys-file: principal " + entry.principal, entry.rate));
        });
    }
    // Without rate-limit, only principals whose key has a rate of its own are limited; the limiter's default
    // rate is then never used.
    limit_everyone_ = !o.rate_limit.empty();
    if (limit_everyone_) default_rate_ = parse_rate("rate-limit", o.rate_limit);
    burst_ = o.rate_limit_burst;
    if (limit_everyone_ || !key_rates_.empty()) {
        policy::ratelimit::RateLimiterConfig config{limit_everyone_ ? *default_rate_ : key_rates_.begin()->second,
                                                    o.rate_limit_burst, o.rate_limit_max_keys};
        try {
            limiter_ = std::make_shared<policy::ratelimit::RateLimiter>(config);
        } catch (const std::invalid_argument& e) {
            throw option_error("rate-limit", e.what());
        }
        limited_ = &registry.counter("slipstream_rate_limited_total", "Requests answered 429 by the rate limit.");
        if (o.rate_limit_store) {
            std::shared_ptr<policy::ratelimit::RateLimiter> local = limiter_;
            shared_ = std::make_shared<SharedRateLimit>(
                o.rate_limit_store, o.rate_limit_store_failure, o.rate_limit_store_batch, o.rate_limit_store_in_flight,
                o.rate_limit_max_keys, std::int64_t{o.rate_limit_store_retry_ms} * 1'000'000,
                [local, fallback = default_rate_](std::string_view key, base::MonoNanos now,
                                                  const policy::ratelimit::Rate& rate) {
                    return local->check(key, now, fallback && rate == *fallback ? nullptr : &rate);
                },
                registry);
        }
    }
    std::string_view paths = o.auth_public_paths;
    while (!paths.empty()) {
        std::size_t comma = paths.find(',');
        std::string_view item = base::trim_ows(paths.substr(0, comma));
        if (!item.empty()) {
            if (item.front() != '/') throw option_error("auth-public-paths", "route templates start with '/'");
            public_routes_.emplace(item);
        }
        paths = comma == std::string_view::npos ? std::string_view() : paths.substr(comma + 1);
    }
}

namespace {

// A JWT's scopes: `scope` (a space-separated string, RFC 8693 §4.2) or `scopes` (an array of strings), joined
// with spaces into `arena`. False when the token has neither (or one of another type: then it has none).
bool jwt_scopes(const json::Value* claims, base::Arena& arena, std::string_view& out) {
    if (claims == nullptr || !claims->is_object()) return false;
    if (const json::Value* scope = claims->find("scope"); scope != nullptr) {
        out = scope->is_string() ? scope->as_string() : std::string_view();
        return true;
    }
    const json::Value* list = claims->find("scopes");
    if (list == nullptr) return false;
    if (!list->is_array()) return true;
    std::size_t total = 0;
    for (const json::Value& item : list->items())
        if (item.is_string()) total += item.size() + 1;
    if (total == 0) return true;
    char* text = static_cast<char*>(arena.allocate(total, 1));
    std::size_t n = 0;
    for (const json::Value& item : list->items()) {
        if (!item.is_string() || item.size() == 0) continue;
        if (n > 0) text[n++] = ' ';
        std::memcpy(text + n, item.as_string().data(), item.size());
        n += item.size();
    }
    out = std::string_view(text, n);
    return true;
}

bool printable_key(std::string_view s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7F) return false;
    return true;
}

// The shared store's key: printable text ("p:alice"; a principal with other bytes, and an address, in hex).
std::string store_key(std::string_view key) {
    if (key.starts_with("p:") && printable_key(key) && key.size() <= 258) return std::string(key);
    std::string out(key.starts_with("p:") ? "px:" : "ax:");
    base::append_hex(out, key.substr(2, 128));
    return out;
}

}  // namespace

bool AccessPolicy::admit_issued(std::string_view token, std::int64_t unix_now, Admission& admission) {
    std::shared_ptr<const IssuedCredential> found = issued_->find(token, unix_now);
    if (!found) {
        refused_[static_cast<std::size_t>(policy::auth::AuthError::kUnknownApiKey)]->inc();
        admission.refusal =
            unauthorized(policy::auth::auth_error_message(policy::auth::AuthError::kUnknownApiKey), true);
        return false;
    }
    admission.principal = found->principal;
    admission.scopes = found->scopes;
    admission.scoped = true;
    admission.credential = std::move(found);
    return true;
}

Admission AccessPolicy::admit(std::span<const http::h1::Header> headers, const net::SocketAddress* peer,
                              base::MonoNanos now, base::Arena& arena) {
    Admission admission;
    std::string_view own_rate;
    if (authenticator_ || issued_) {
        auto unix_now =
            std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        policy::auth::Credentials presented;
        if (issued_) presented = policy::auth::extract_credentials(headers, api_key_header_);
        if (issued_ && presented.value.starts_with(issued_prefix_)) {
            if (!admit_issued(presented.value, unix_now, admission)) return admission;
        } else if (issued_ && !authenticator_ && presented.kind != policy::auth::CredentialKind::kNone) {
            // Only issued tokens are accepted, and this is none.
            policy::auth::AuthError error = presented.kind == policy::auth::CredentialKind::kMalformed
                                                ? policy::auth::AuthError::kMalformedCredentials
                                                : policy::auth::AuthError::kUnknownApiKey;
            refused_[static_cast<std::size_t>(error)]->inc();
            admission.refusal = unauthorized(policy::auth::auth_error_message(error), true);
            return admission;
        } else if (authenticator_) {
            policy::auth::AuthResult result = authenticator_->authenticate(headers, unix_now, arena);
            if (result.outcome == policy::auth::AuthOutcome::kRefused) {
                refused_[static_cast<std::size_t>(result.error)]->inc();
                admission.refusal = unauthorized(policy::auth::auth_error_message(result.error), true);
                return admission;
            }
            admission.principal = result.principal;
            own_rate = result.rate;
            admission.scoped = jwt_scopes(result.claims, arena, admission.scopes);
        }
        if (admission.principal.empty() && mode_ == Mode::kRequired) {
            refused_[static_cast<std::size_t>(policy::auth::AuthError::kNone)]->inc();
            admission.refusal = unauthorized("Not authenticated", false);
            return admission;
        }
    }
    if (limiter_) {
        const policy::ratelimit::Rate* rate = nullptr;
        if (!own_rate.empty()) {
            auto it = key_rates_.find(own_rate);
            if (it != key_rates_.end()) rate = &it->second;
        }
        if (rate == nullptr && !limit_everyone_) return admission;
        limit(rate, peer, now, admission);
    }
    return admission;
}

void AccessPolicy::limit(const policy::ratelimit::Rate* own, const net::SocketAddress* peer, base::MonoNanos now,
                         Admission& admission) {
    char key[net::SocketAddress::kMaxFormatted + 8];
    std::size_t key_len = limiter_key(admission.principal, peer, key, sizeof key);
    const std::string_view k(key, key_len);
    if (shared_) {
        // A key's own rate has its count as its burst (as in the local limiter).
        const policy::ratelimit::Rate& rate = own ? *own : *default_rate_;
        const std::uint64_t burst = own ? own->count() : (burst_ != 0 ? burst_ : rate.count());
        policy::ratelimit::Decision refused;
        admission.shared_key = store_key(k);
        if (shared_->refused_locally(admission.shared_key, now, burst, refused)) {
            limited_->inc();
            admission.refusal = too_many(refused);
            admission.shared_key.clear();
            return;
        }
        admission.shared_rate = own ? own : &*default_rate_;
        return;
    }
    policy::ratelimit::Decision decision = limiter_->check(k, now, own);
    if (!decision.allowed) {
        limited_->inc();
        admission.refusal = too_many(decision);
    }
}

void AccessPolicy::check_shared(std::string key, const policy::ratelimit::Rate* rate, base::MonoNanos now,
                                SharedRateLimit::Done done) {
    const bool own = !default_rate_ || rate != &*default_rate_;
    const std::uint64_t burst = own ? rate->count() : (burst_ != 0 ? burst_ : rate->count());
    metrics::Counter* limited = limited_;
    shared_->check(std::move(key), *rate, burst, now, [limited, done = std::move(done)](SharedResult r) {
        if (r.verdict == SharedVerdict::kDecided && !r.decision.allowed) limited->inc();
        done(r);
    });
}

Response AccessPolicy::store_unavailable() const {
    Response r(503);
    if (fastapi_style_) {
        r.body = R"({"detail":"Rate limit store unavailable"})";
        r.content_type = ContentType::constant("application/json");
    } else {
        r.body = problem_body({503, "rate limit store unavailable"});
        r.content_type = ContentType::constant(kProblemContentType);
    }
    r.headers.emplace_back("Retry-After", "1");
    return r;
}

std::size_t AccessPolicy::limiter_key(std::string_view principal, const net::SocketAddress* peer, char* buf,
                                      std::size_t cap) {
    if (!principal.empty()) {
        // Principals are at most 128 bytes (key file) or a token's `sub`: a long `sub` is cut, which only
        // merges principals that share their first bytes.
        std::size_t n = std::min(principal.size(), cap - 2);
        std::memcpy(buf, "p:", 2);
        std::memcpy(buf + 2, principal.data(), n);
        return 2 + n;
    }
    std::memcpy(buf, "a:", 2);
    if (peer == nullptr) return 2;
    if (peer->is_ipv4()) {
        const auto* in4 = reinterpret_cast<const sockaddr_in*>(peer->sockaddr_ptr());
        std::memcpy(buf + 2, &in4->sin_addr, 4);
        return 6;
    }
    if (peer->is_ipv6()) {
        // One client usually holds a whole /64: keying by the full address would give it 2^64 buckets.
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(peer->sockaddr_ptr());
        std::memcpy(buf + 2, &in6->sin6_addr, 8);
        return 10;
    }
    return 2;  // Unix-domain clients share one bucket
}

Response AccessPolicy::unauthorized(std::string_view detail, bool invalid_token) const {
    Response r(401);
    if (fastapi_style_) {
        // The details are the closed set of fixed sentences of auth_error_message(): no JSON escaping needed.
        r.body = std::string(R"({"detail":")") + std::string(detail) + "\"}";
        r.content_type = ContentType::constant("application/json");
    } else {
        r.body = problem_body({401, detail});
        r.content_type = ContentType::constant(kProblemContentType);
    }
    r.headers.emplace_back("WWW-Authenticate", invalid_token ? invalid_challenge_ : challenge_);
    return r;
}

Response AccessPolicy::too_many(const policy::ratelimit::Decision& decision) const {
    policy::ratelimit::HeaderValues values = policy::ratelimit::header_values(decision);
    Response r(429);
    if (fastapi_style_) {
        r.body = R"({"detail":"Too Many Requests"})";
        r.content_type = ContentType::constant("application/json");
    } else {
        r.body = problem_body({429, "rate limit exceeded"});
        r.content_type = ContentType::constant(kProblemContentType);
    }
    r.headers.emplace_back("Retry-After", std::to_string(values.retry_after_s));
    r.headers.emplace_back("RateLimit-Limit", std::to_string(values.limit));
    r.headers.emplace_back("RateLimit-Remaining", std::to_string(values.remaining));
    r.headers.emplace_back("RateLimit-Reset", std::to_string(values.reset_s));
    return r;
}

}  // namespace slipstream::server
