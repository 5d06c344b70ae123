// open_shared_state(): SharedStateSettings to a DatabaseBucketStore and a TokenStore, wired into ServerOptions.
#include "app/shared_state.h"

#include "agent/shared_state/bucket_store.h"
#include "agent/shared_state/token_routes.h"
#include "app/database.h"

namespace slipstream::app {

SharedState::~SharedState() {
    if (tokens) tokens->close();
}

base::Result<std::unique_ptr<SharedState>> open_shared_state(Config& config) {
    const SharedStateSettings& s = config.shared;
    auto state = std::make_unique<SharedState>();
    if (s.rate_limit_store == "store") {
        if (config.sessions.store_url.empty())
            return base::Status::invalid_argument(
                "rate-limit-store: 'store' needs --store postgresql://... (the buckets every replica shares)");
        block_stop_signals();
        store::DatabaseConfig c = database_config(config.database, config.sessions.store_url);
        SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> opened, store::Database::open(std::move(c)));
        std::shared_ptr<store::Database> db(std::move(opened));
        SLIPSTREAM_ASSIGN_OR_RETURN(std::shared_ptr<agent::shared_state::DatabaseBucketStore> buckets,
                                    agent::shared_state::DatabaseBucketStore::open(
                                        db, std::int64_t{s.rate_limit_store_timeout_ms} * 1'000'000));
        config.server.rate_limit_store = std::move(buckets);
    }
    if (s.tokens) {
        SLIPSTREAM_ASSIGN_OR_RETURN(std::string url, agent_store_url(config.sessions, "tokens.db"));
        block_stop_signals();
        store::DatabaseConfig c = database_config(config.database, std::move(url));
        SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> opened, store::Database::open(std::move(c)));
        agent::shared_state::TokenStoreOptions options;
        options.admin_token = s.admin_token;
        options.refresh_ms = s.token_refresh_ms;
        options.max_tokens = s.token_max;
        options.max_ttl_s = static_cast<std::int64_t>(s.token_max_ttl_s);
        options.keep_revoked_s = static_cast<std::int64_t>(s.token_keep_revoked_s);
        SLIPSTREAM_ASSIGN_OR_RETURN(state->tokens, agent::shared_state::TokenStore::open(
                                                       std::shared_ptr<store::Database>(std::move(opened)), options));
        config.server.issued_credentials = state->tokens;
        config.shared.admin_token.clear();  // the digest is all that is kept
        state->openapi_path = s.token_openapi_path;
    }
    return state;
}

void mount_shared_state(SharedState& state, App& app) {
    if (!state.tokens) return;
    agent::shared_state::mount_token_routes(app, state.tokens, "/admin/tokens",
                                            state.openapi_path == "off" ? "" : state.openapi_path);
}

}  // namespace slipstream::app
