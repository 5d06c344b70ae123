// AccessPolicy: options -> Authenticator and RateLimiter; per request: credentials, then the principal's rate.
#include "server/conn/access_policy.h"

#include <netinet/in.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/ows.h"
#include "policy/auth/auth_config_error.h"
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
    : fastapi_style_(o.fastapi_route_errors) {
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
    if (mode_ != Mode::kOff) {
        if (!credentials) throw option_error("auth", "needs api-keys-file, jwt-secret-file or jwt-public-key-file");
        authenticator_ = make_authenticator(o);
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
    if (limit_everyone_ || !key_rates_.empty()) {
        policy::ratelimit::RateLimiterConfig config{
            limit_everyone_ ? parse_rate("rate-limit", o.rate_limit) : key_rates_.begin()->second, o.rate_limit_burst,
            o.rate_limit_max_keys};
        try {
            limiter_ = std::make_unique<policy::ratelimit::RateLimiter>(config);
        } catch (const std::invalid_argument& e) {
            throw option_error("rate-limit", e.what());
        }
        limited_ = &registry.counter("slipstream_rate_limited_total", "Requests answered 429 by the rate limit.");
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

Admission AccessPolicy::admit(std::span<const http::h1::Header> headers, const net::SocketAddress* peer,
                              base::MonoNanos now, base::Arena& arena) {
    Admission admission;
    std::string_view own_rate;
    if (authenticator_) {
        auto unix_now =
            std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        policy::auth::AuthResult result = authenticator_->authenticate(headers, unix_now, arena);
        if (result.outcome == policy::auth::AuthOutcome::kRefused) {
            refused_[static_cast<std::size_t>(result.error)]->inc();
            admission.refusal = unauthorized(policy::auth::auth_error_message(result.error), true);
            return admission;
        }
        if (result.outcome == policy::auth::AuthOutcome::kAnonymous && mode_ == Mode::kRequired) {
            refused_[static_cast<std::size_t>(policy::auth::AuthError::kNone)]->inc();
            admission.refusal = unauthorized("Not authenticated", false);
            return admission;
        }
        admission.principal = result.principal;
        own_rate = result.rate;
    }
    if (limiter_) {
        const policy::ratelimit::Rate* rate = nullptr;
        if (!own_rate.empty()) {
            auto it = key_rates_.find(own_rate);
            if (it != key_rates_.end()) rate = &it->second;
        }
        if (rate == nullptr && !limit_everyone_) return admission;
        char key[net::SocketAddress::kMaxFormatted + 8];
        std::size_t key_len = limiter_key(admission.principal, peer, key, sizeof key);
        policy::ratelimit::Decision decision = limiter_->check(std::string_view(key, key_len), now, rate);
        if (!decision.allowed) {
            limited_->inc();
            admission.refusal = too_many(decision);
        }
    }
    return admission;
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
