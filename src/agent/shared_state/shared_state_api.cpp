// The public API of include/slipstream/shared_state.h: TokenService over TokenStore and its routes, and
// open_rate_limit_store() over DatabaseBucketStore.
#include <stdexcept>

#include "agent/shared_state/bucket_store.h"
#include "agent/shared_state/token_routes.h"
#include "agent/shared_state/token_store.h"
#include "slipstream/shared_state.h"

namespace slipstream {

namespace {

std::shared_ptr<store::Database> open_database(const std::string& url, const char* what) {
    if (url.empty()) throw std::invalid_argument(std::string(what) + ": store_url is required");
    store::DatabaseConfig config;
    config.url = url;
    base::Result<std::unique_ptr<store::Database>> opened = store::Database::open(std::move(config));
    if (!opened.is_ok()) throw std::runtime_error(std::string(what) + ": " + opened.status().message());
    return std::shared_ptr<store::Database>(std::move(opened).value());
}

void check_bounds(const TokensOptions& o) {
    auto need = [](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string("TokensOptions: ") + what);
    };
    need(o.refresh_ms >= 10 && o.refresh_ms <= 3'600'000, "refresh_ms must be in 10..3600000");
    need(o.max_tokens >= 1 && o.max_tokens <= 10'000'000, "max_tokens must be in 1..10000000");
    constexpr std::int64_t kCentury = 100LL * 366 * 86'400;
    need(o.max_ttl_s >= 1 && o.max_ttl_s <= kCentury, "max_ttl_s must be in 1..3162240000");
    need(o.keep_revoked_s >= 0 && o.keep_revoked_s <= kCentury, "keep_revoked_s must be in 0..3162240000");
    need(o.admin_token.empty() || (o.admin_token.size() >= 16 && o.admin_token.starts_with("sst_")),
         "admin_token must start with sst_ and hold at least 16 characters");
}

}  // namespace

struct TokenService::Impl {
    std::shared_ptr<agent::shared_state::TokenStore> tokens;
};

TokenService::TokenService(TokensOptions options) : impl_(std::make_unique<Impl>()) {
    check_bounds(options);
    agent::shared_state::TokenStoreOptions o;
    o.admin_token = std::move(options.admin_token);
    o.refresh_ms = options.refresh_ms;
    o.max_tokens = options.max_tokens;
    o.max_ttl_s = options.max_ttl_s;
    o.keep_revoked_s = options.keep_revoked_s;
    base::Result<std::shared_ptr<agent::shared_state::TokenStore>> opened =
        agent::shared_state::TokenStore::open(open_database(options.store_url, "the token store"), std::move(o));
    if (!opened.is_ok()) throw std::runtime_error("the token store: " + opened.status().message());
    impl_->tokens = std::move(opened).value();
}

TokenService::~TokenService() {
    close();
}

std::shared_ptr<const IssuedCredentials> TokenService::credentials() const {
    return impl_->tokens;
}

std::string TokenService::mount(App& app, std::string_view prefix, std::string_view openapi_path) {
    if (prefix.empty() || prefix.front() != '/' || prefix.back() == '/')
        throw std::invalid_argument("TokenService::mount: the prefix starts with '/' and does not end with one");
    return agent::shared_state::mount_token_routes(app, impl_->tokens, std::string(prefix), std::string(openapi_path));
}

void TokenService::close() {
    if (impl_ && impl_->tokens) impl_->tokens->close();
}

std::shared_ptr<RateLimitStore> open_rate_limit_store(const std::string& store_url, std::uint32_t timeout_ms) {
    if (timeout_ms < 1 || timeout_ms > 60'000)
        throw std::invalid_argument("rate limit store: timeout_ms must be in 1..60000");
    if (store_url.starts_with("sqlite:"))
        throw std::invalid_argument(
            "rate limit store: needs a postgresql:// URL (the buckets every replica shares; a SQLite file is not "
            "shared: leave the store out to count in this process)");
    base::Result<std::shared_ptr<agent::shared_state::DatabaseBucketStore>> opened =
        agent::shared_state::DatabaseBucketStore::open(open_database(store_url, "the rate limit store"),
                                                       std::int64_t{timeout_ms} * 1'000'000);
    if (!opened.is_ok()) {
        if (opened.status().is_invalid_argument())
            throw std::invalid_argument("rate limit store: " + opened.status().message());
        throw std::runtime_error("rate limit store: " + opened.status().message());
    }
    return std::move(opened).value();
}

}  // namespace slipstream
