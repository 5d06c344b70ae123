// Tests for the option table and Registry: every option reaches its field; typed errors are exact.
#include "app/registry.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <stdexcept>
#include <string>

#include "app/config_error.h"

namespace slipstream::app {
namespace {

// One row per registered option: a non-default value and the field it must land in.
struct FieldCase {
    const char* name;
    const char* text;
    std::function<bool(const Config&)> landed;
    const char* read_back;  // Registry::get after the set
};

TEST(Registry, EveryOptionSetsItsField) {
    const FieldCase cases[] = {
        {"config", "/etc/app.conf", [](const Config& c) { return c.config_path == "/etc/app.conf"; }, "/etc/app.conf"},
        {"threads", "4", [](const Config& c) { return c.server.threads == 4; }, "4"},
        {"server-header", "edge", [](const Config& c) { return c.server.server_header == "edge"; }, "edge"},
        {"host", "::1", [](const Config& c) { return c.run.host == "::1"; }, "::1"},
        {"port", "65535", [](const Config& c) { return c.run.port == 65535; }, "65535"},
        {"unix", "/run/s.sock", [](const Config& c) { return c.run.unix_path == "/run/s.sock"; }, "/run/s.sock"},
        {"max-request-line", "4k", [](const Config& c) { return c.server.max_request_line == 4096; }, "4k"},
        {"max-header-bytes", "32k", [](const Config& c) { return c.server.max_header_bytes == 32768; }, "32k"},
        {"max-headers", "50", [](const Config& c) { return c.server.max_headers == 50; }, "50"},
        {"max-body-bytes", "2m", [](const Config& c) { return c.server.max_body_bytes == 2u << 20; }, "2m"},
        {"header-timeout", "5s", [](const Config& c) { return c.server.header_timeout_ms == 5000; }, "5s"},
        {"body-timeout", "250ms", [](const Config& c) { return c.server.body_timeout_ms == 250; }, "250ms"},
        {"keepalive-timeout", "2m", [](const Config& c) { return c.server.keepalive_timeout_ms == 120000; }, "2m"},
        {"write-timeout", "1h", [](const Config& c) { return c.server.write_timeout_ms == 3600000; }, "1h"},
        {"handler-timeout", "90s", [](const Config& c) { return c.server.handler_timeout_ms == 90000; }, "90s"},
        {"drain-timeout", "0s", [](const Config& c) { return c.server.drain_timeout_ms == 0; }, "0ms"},
        {"max-connections", "20", [](const Config& c) { return c.server.max_connections == 20; }, "20"},
        {"body-min-rate", "0", [](const Config& c) { return c.server.body_min_rate == 0; }, "0"},
        {"write-min-rate", "64k", [](const Config& c) { return c.server.write_min_rate == 65536; }, "64k"},
        {"max-connections-per-ip", "8", [](const Config& c) { return c.server.max_connections_per_ip == 8; }, "8"},
        {"reuse-port", "yes", [](const Config& c) { return c.server.reuse_port; }, "true"},
        {"max-requests-per-connection", "7", [](const Config& c) { return c.server.max_requests_per_connection == 7; },
         "7"},
        {"max-pipelined", "1", [](const Config& c) { return c.server.max_pipelined == 1; }, "1"},
        {"max-output-buffer", "1g", [](const Config& c) { return c.server.max_output_buffer == 1u << 30; }, "1g"},
        {"stream-high-water", "64k", [](const Config& c) { return c.server.stream_high_water_bytes == 65536; }, "64k"},
        {"log-level", "debug", [](const Config& c) { return c.run.log_level == base::LogLevel::kDebug; }, "debug"},
        {"log-format", "json", [](const Config& c) { return c.run.log_format == "json"; }, "json"},
        {"access-log", "false", [](const Config& c) { return !c.server.access_log; }, "false"},
        {"request-metrics", "false", [](const Config& c) { return !c.server.request_metrics; }, "false"},
        {"access-log-flush", "250ms", [](const Config& c) { return c.server.access_log_flush_ms == 250; }, "250ms"},
        {"validation-problem-json", "true", [](const Config& c) { return c.server.validation_problem_json; }, "true"},
        {"access-log-path", "/var/log/a.log", [](const Config& c) { return c.run.access_log_path == "/var/log/a.log"; },
         "/var/log/a.log"},
        {"health-path", "off", [](const Config& c) { return c.server.health_path.empty(); }, "off"},
        {"livez-path", "/_/live", [](const Config& c) { return c.server.livez_path == "/_/live"; }, "/_/live"},
        {"readyz-path", "off", [](const Config& c) { return c.server.readyz_path.empty(); }, "off"},
        {"metrics-path", "/prom", [](const Config& c) { return c.server.metrics_path == "/prom"; }, "/prom"},
        {"compression", "no", [](const Config& c) { return !c.server.compression; }, "false"},
        {"compression-min-size", "2k", [](const Config& c) { return c.server.compression_min_size == 2048; }, "2k"},
        {"compression-encodings", "gzip,br",
         [](const Config& c) { return c.server.compression_encodings == "gzip,br"; }, "gzip,br"},
        {"compression-types", "text/*", [](const Config& c) { return c.server.compression_types == "text/*"; },
         "text/*"},
        {"gzip-level", "9", [](const Config& c) { return c.server.gzip_level == 9; }, "9"},
        {"brotli-level", "11", [](const Config& c) { return c.server.brotli_level == 11; }, "11"},
        {"zstd-level", "19", [](const Config& c) { return c.server.zstd_level == 19; }, "19"},
        {"compress-sse", "yes", [](const Config& c) { return c.server.compress_sse; }, "true"},
        {"io-uring", "on", [](const Config& c) { return c.server.io_uring; }, "true"},
        {"request-id-response", "off", [](const Config& c) { return !c.server.request_id_response; }, "false"},
        {"request-decompression", "off", [](const Config& c) { return !c.server.request_decompression; }, "false"},
        {"max-decompressed-body-bytes", "8m",
         [](const Config& c) { return c.server.max_decompressed_body_bytes == 8u << 20; }, "8m"},
        {"max-decompression-ratio", "0", [](const Config& c) { return c.server.max_decompression_ratio == 0; }, "0"},
        {"sse-heartbeat", "0s", [](const Config& c) { return c.server.sse_heartbeat_ms == 0; }, "0ms"},
        {"tls-cert", "/etc/c.pem", [](const Config& c) { return c.server.tls_cert_file == "/etc/c.pem"; },
         "/etc/c.pem"},
        {"tls-key", "/etc/k.pem", [](const Config& c) { return c.server.tls_key_file == "/etc/k.pem"; }, "/etc/k.pem"},
        {"tls-client-ca", "/etc/ca.pem", [](const Config& c) { return c.server.tls_client_ca_file == "/etc/ca.pem"; },
         "/etc/ca.pem"},
        {"tls-handshake-timeout", "3s", [](const Config& c) { return c.server.tls_handshake_timeout_ms == 3000; },
         "3s"},
        {"http2", "off", [](const Config& c) { return !c.server.http2; }, "false"},
        {"h2-max-concurrent-streams", "250", [](const Config& c) { return c.server.h2_max_concurrent_streams == 250; },
         "250"},
        {"h2-max-header-list-size", "64k", [](const Config& c) { return c.server.h2_max_header_list_size == 65536; },
         "64k"},
        {"h2-initial-window-size", "64k", [](const Config& c) { return c.server.h2_initial_window_size == 65536; },
         "64k"},
        {"h2-connection-window-size", "1m",
         [](const Config& c) { return c.server.h2_connection_window_size == 1u << 20; }, "1m"},
        {"h2-reset-burst", "50", [](const Config& c) { return c.server.h2_reset_burst == 50; }, "50"},
        {"h2-reset-rate", "5", [](const Config& c) { return c.server.h2_reset_rate == 5; }, "5"},
        {"h2-control-burst", "64", [](const Config& c) { return c.server.h2_control_burst == 64; }, "64"},
        {"h2-control-rate", "10", [](const Config& c) { return c.server.h2_control_rate == 10; }, "10"},
        {"h2-max-continuations", "2", [](const Config& c) { return c.server.h2_max_continuations == 2; }, "2"},
        {"max-handlers-in-flight", "500", [](const Config& c) { return c.server.max_handlers_in_flight == 500; },
         "500"},
        {"ws-max-message-bytes", "64k", [](const Config& c) { return c.server.ws_max_message_bytes == 65536; }, "64k"},
        {"ws-max-frame-bytes", "16k", [](const Config& c) { return c.server.ws_max_frame_bytes == 16384; }, "16k"},
        {"ws-max-send-queue-bytes", "1m", [](const Config& c) { return c.server.ws_max_send_queue_bytes == 1048576; },
         "1m"},
        {"ws-deflate", "false", [](const Config& c) { return !c.server.ws_deflate; }, "false"},
        {"ws-ping-interval", "5s", [](const Config& c) { return c.server.ws_ping_interval_ms == 5000; }, "5s"},
        {"ws-pong-timeout", "2s", [](const Config& c) { return c.server.ws_pong_timeout_ms == 2000; }, "2s"},
        {"ws-close-timeout", "1s", [](const Config& c) { return c.server.ws_close_timeout_ms == 1000; }, "1s"},
        {"cors-allow-origins", "https://a.example,https://b.example",
         [](const Config& c) { return c.server.cors_allow_origins == "https://a.example,https://b.example"; },
         "https://a.example,https://b.example"},
        {"cors-allow-origin-regex", R"(https://.*\.example\.org)",
         [](const Config& c) { return c.server.cors_allow_origin_regex == R"(https://.*\.example\.org)"; },
         R"(https://.*\.example\.org)"},
        {"cors-allow-methods", "*", [](const Config& c) { return c.server.cors_allow_methods == "*"; }, "*"},
        {"cors-allow-headers", "Authorization, X-Trace",
         [](const Config& c) { return c.server.cors_allow_headers == "Authorization, X-Trace"; },
         "Authorization, X-Trace"},
        {"cors-allow-credentials", "true", [](const Config& c) { return c.server.cors_allow_credentials; }, "true"},
        {"cors-expose-headers", "X-Total", [](const Config& c) { return c.server.cors_expose_headers == "X-Total"; },
         "X-Total"},
        {"cors-allow-private-network", "yes", [](const Config& c) { return c.server.cors_allow_private_network; },
         "true"},
        {"cors-max-age", "86400", [](const Config& c) { return c.server.cors_max_age == 86400; }, "86400"},
        {"auth", "required", [](const Config& c) { return c.server.auth == "required"; }, "required"},
        {"api-keys-file", "/etc/keys", [](const Config& c) { return c.server.api_keys_file == "/etc/keys"; },
         "/etc/keys"},
        {"api-key-header", "X-Key", [](const Config& c) { return c.server.api_key_header == "X-Key"; }, "X-Key"},
        {"jwt-secret-file", "/s", [](const Config& c) { return c.server.jwt_secret_file == "/s"; }, "/s"},
        {"jwt-public-key-file", "/k.pem", [](const Config& c) { return c.server.jwt_public_key_file == "/k.pem"; },
         "/k.pem"},
        {"jwt-issuer", "https://i", [](const Config& c) { return c.server.jwt_issuer == "https://i"; }, "https://i"},
        {"jwt-audience", "api", [](const Config& c) { return c.server.jwt_audience == "api"; }, "api"},
        {"jwt-leeway", "5s", [](const Config& c) { return c.server.jwt_leeway_ms == 5000; }, "5s"},
        {"auth-public-paths", "/docs,/openapi.json",
         [](const Config& c) { return c.server.auth_public_paths == "/docs,/openapi.json"; }, "/docs,/openapi.json"},
        {"auth-resource-metadata", "https://a/.well-known/oauth-protected-resource",
         [](const Config&
                c) { return c.server.auth_resource_metadata == "https://a/.well-known/oauth-protected-resource"; },
         "https://a/.well-known/oauth-protected-resource"},
        {"rate-limit", "100/s", [](const Config& c) { return c.server.rate_limit == "100/s"; }, "100/s"},
        {"rate-limit-burst", "250", [](const Config& c) { return c.server.rate_limit_burst == 250; }, "250"},
        {"rate-limit-max-keys", "5000", [](const Config& c) { return c.server.rate_limit_max_keys == 5000; }, "5000"},
        {"rate-limit-store", "store", [](const Config& c) { return c.shared.rate_limit_store == "store"; }, "store"},
        {"rate-limit-store-failure", "closed",
         [](const Config& c) { return c.server.rate_limit_store_failure == "closed"; }, "closed"},
        {"rate-limit-store-timeout", "2s", [](const Config& c) { return c.shared.rate_limit_store_timeout_ms == 2000; },
         "2s"},
        {"rate-limit-store-batch", "64", [](const Config& c) { return c.server.rate_limit_store_batch == 64; }, "64"},
        {"rate-limit-store-in-flight", "2", [](const Config& c) { return c.server.rate_limit_store_in_flight == 2; },
         "2"},
        {"rate-limit-store-retry", "5s", [](const Config& c) { return c.server.rate_limit_store_retry_ms == 5000; },
         "5s"},
        {"tokens", "true", [](const Config& c) { return c.shared.tokens; }, "true"},
        {"token-openapi", "/docs/tokens.json",
         [](const Config& c) { return c.shared.token_openapi_path == "/docs/tokens.json"; }, "/docs/tokens.json"},
        {"admin-token", "sst_bootstrap_0123456789",
         [](const Config& c) { return c.shared.admin_token == "sst_bootstrap_0123456789"; },
         "sst_bootstrap_0123456789"},
        {"token-refresh", "250ms", [](const Config& c) { return c.shared.token_refresh_ms == 250; }, "250ms"},
        {"token-max", "50", [](const Config& c) { return c.shared.token_max == 50; }, "50"},
        {"token-max-ttl", "3600", [](const Config& c) { return c.shared.token_max_ttl_s == 3600; }, "3600"},
        {"token-keep-revoked", "60", [](const Config& c) { return c.shared.token_keep_revoked_s == 60; }, "60"},
        {"database-url", "postgresql://db/app", [](const Config& c) { return c.database.url == "postgresql://db/app"; },
         "postgresql://db/app"},
        {"database-pool-min", "2", [](const Config& c) { return c.database.pool_min == 2; }, "2"},
        {"database-pool-max", "20", [](const Config& c) { return c.database.pool_max == 20; }, "20"},
        {"database-acquire-timeout", "2s", [](const Config& c) { return c.database.acquire_timeout_ms == 2000; }, "2s"},
        {"database-connect-timeout", "3s", [](const Config& c) { return c.database.connect_timeout_ms == 3000; }, "3s"},
        {"database-statement-timeout", "30s", [](const Config& c) { return c.database.statement_timeout_ms == 30000; },
         "30s"},
        {"database-max-sessions", "8", [](const Config& c) { return c.database.max_sessions == 8; }, "8"},
        {"database-statement-cache", "0", [](const Config& c) { return c.database.statement_cache == 0; }, "0"},
        {"sessions", "true", [](const Config& c) { return c.sessions.enabled; }, "true"},
        {"store", "sqlite:///var/lib/app/s.db",
         [](const Config& c) { return c.sessions.store_url == "sqlite:///var/lib/app/s.db"; },
         "sqlite:///var/lib/app/s.db"},
        {"data-dir", "/var/lib/app", [](const Config& c) { return c.sessions.data_dir == "/var/lib/app"; },
         "/var/lib/app"},
        {"session-max-events", "500", [](const Config& c) { return c.sessions.max_events == 500; }, "500"},
        {"session-max-event-bytes", "1k", [](const Config& c) { return c.sessions.max_event_bytes == 1024; }, "1k"},
        {"session-max-state-bytes", "2m", [](const Config& c) { return c.sessions.max_state_bytes == 2 * 1024 * 1024; },
         "2m"},
        {"session-max-per-principal", "7", [](const Config& c) { return c.sessions.max_per_principal == 7; }, "7"},
        {"session-ttl", "90s", [](const Config& c) { return c.sessions.ttl_ms == 90'000; }, "90s"},
        {"session-sweep-interval", "5s", [](const Config& c) { return c.sessions.sweep_interval_ms == 5000; }, "5s"},
        {"session-durability", "buffered", [](const Config& c) { return c.sessions.durability == "buffered"; },
         "buffered"},
        {"session-flush", "20ms", [](const Config& c) { return c.sessions.flush_ms == 20; }, "20ms"},
        {"session-queue", "500", [](const Config& c) { return c.sessions.max_queued_events == 500; }, "500"},
        {"session-append-in-flight", "2", [](const Config& c) { return c.sessions.append_in_flight == 2; }, "2"},
        {"session-append-batch", "16", [](const Config& c) { return c.sessions.append_batch == 16; }, "16"},
        {"session-openapi", "/docs/sessions.json",
         [](const Config& c) { return c.sessions.openapi_path == "/docs/sessions.json"; }, "/docs/sessions.json"},
        {"decide", "true", [](const Config& c) { return c.decide.enabled; }, "true"},
        {"decide-decisions", "buffered", [](const Config& c) { return c.decide.decisions == "buffered"; }, "buffered"},
        {"decide-max-capsules", "9", [](const Config& c) { return c.decide.max_capsules == 9; }, "9"},
        {"decide-max-actions", "5", [](const Config& c) { return c.decide.max_actions == 5; }, "5"},
        {"decide-max-dimension", "32", [](const Config& c) { return c.decide.max_dimension == 32; }, "32"},
        {"decide-max-features", "4", [](const Config& c) { return c.decide.max_features == 4; }, "4"},
        {"decide-max-spec-bytes", "2k", [](const Config& c) { return c.decide.max_spec_bytes == 2048; }, "2k"},
        {"decide-max-model-bytes", "2m", [](const Config& c) { return c.decide.max_model_bytes == 2 * 1024 * 1024; },
         "2m"},
        {"decide-max-context-bytes", "1k", [](const Config& c) { return c.decide.max_context_bytes == 1024; }, "1k"},
        {"decide-max-batch", "3", [](const Config& c) { return c.decide.max_batch == 3; }, "3"},
        {"decide-shadow-queue", "7", [](const Config& c) { return c.decide.shadow_queue == 7; }, "7"},
        {"decide-shadow-flush", "20ms", [](const Config& c) { return c.decide.shadow_flush_ms == 20; }, "20ms"},
        {"decide-shadow-batch", "9", [](const Config& c) { return c.decide.shadow_batch == 9; }, "9"},
        {"decide-snapshot-every", "11", [](const Config& c) { return c.decide.snapshot_every == 11; }, "11"},
        {"decide-sweep-interval", "2s", [](const Config& c) { return c.decide.sweep_interval_ms == 2000; }, "2s"},
        {"decide-max-page", "12", [](const Config& c) { return c.decide.max_page == 12; }, "12"},
        {"decide-max-evaluate", "13", [](const Config& c) { return c.decide.max_evaluate == 13; }, "13"},
        {"decide-max-resamples", "14", [](const Config& c) { return c.decide.max_resamples == 14; }, "14"},
        {"decide-promote-min-samples", "15", [](const Config& c) { return c.decide.promote_min_samples == 15; }, "15"},
        {"decide-metrics-capsules", "0", [](const Config& c) { return c.decide.metrics_capsules == 0; }, "0"},
        {"decide-access", "acl.txt", [](const Config& c) { return c.decide.access_file == "acl.txt"; }, "acl.txt"},
        {"decide-default-access", "read", [](const Config& c) { return c.decide.default_access == "read"; }, "read"},
        {"decide-rate-limit", "10/s", [](const Config& c) { return c.decide.decide_rate_limit == "10/s"; }, "10/s"},
        {"decide-reward-rate-limit", "5/s", [](const Config& c) { return c.decide.reward_rate_limit == "5/s"; }, "5/s"},
        {"decide-rate-limit-burst", "3", [](const Config& c) { return c.decide.rate_limit_burst == 3; }, "3"},
        {"decide-openapi", "/v1/openapi.json",
         [](const Config& c) { return c.decide.openapi_path == "/v1/openapi.json"; }, "/v1/openapi.json"},
        {"model", "m.gguf", [](const Config& c) { return c.model.path == "m.gguf"; }, "m.gguf"},
        {"model-id", "tiny", [](const Config& c) { return c.model.id == "tiny"; }, "tiny"},
        {"model-threads", "3", [](const Config& c) { return c.model.threads == 3; }, "3"},
        {"model-kv-cache", "16m", [](const Config& c) { return c.model.kv_cache_bytes == 16 * 1024 * 1024; }, "16m"},
        {"model-block-size", "32", [](const Config& c) { return c.model.block_size == 32; }, "32"},
        {"model-max-context", "4096", [](const Config& c) { return c.model.max_context == 4096; }, "4096"},
        {"model-max-batch-tokens", "128", [](const Config& c) { return c.model.max_batch_tokens == 128; }, "128"},
        {"model-max-running", "8", [](const Config& c) { return c.model.max_running == 8; }, "8"},
        {"model-prefill-chunk", "64", [](const Config& c) { return c.model.prefill_chunk == 64; }, "64"},
        {"model-max-waiting", "10", [](const Config& c) { return c.model.max_waiting == 10; }, "10"},
        {"model-preemption", "swap", [](const Config& c) { return c.model.preemption == "swap"; }, "swap"},
        {"model-prefix-cache", "false", [](const Config& c) { return !c.model.prefix_cache; }, "false"},
        {"model-speculative-ngram", "3", [](const Config& c) { return c.model.speculative_ngram == 3; }, "3"},
        {"model-draft", "d.gguf", [](const Config& c) { return c.model.draft == "d.gguf"; }, "d.gguf"},
        {"model-speculative-draft", "6", [](const Config& c) { return c.model.speculative_draft == 6; }, "6"},
        {"model-draft-kv-cache", "8m", [](const Config& c) { return c.model.draft_kv_cache_bytes == 8 * 1024 * 1024; },
         "8m"},
        {"model-max-choices", "4", [](const Config& c) { return c.model.max_choices == 4; }, "4"},
        {"model-default-max-tokens", "100", [](const Config& c) { return c.model.default_max_tokens == 100; }, "100"},
        {"llm-upstream", "http://u:1", [](const Config& c) { return c.llm_proxy.upstream == "http://u:1"; },
         "http://u:1"},
        {"llm-upstream-api-key", "sk-1", [](const Config& c) { return c.llm_proxy.api_key == "sk-1"; }, "sk-1"},
        {"llm-upstream-api-key-file", "/k", [](const Config& c) { return c.llm_proxy.api_key_file == "/k"; }, "/k"},
        {"llm-upstream-ca-file", "/ca.pem", [](const Config& c) { return c.llm_proxy.ca_file == "/ca.pem"; },
         "/ca.pem"},
        {"llm-upstream-verify-tls", "false", [](const Config& c) { return !c.llm_proxy.verify_tls; }, "false"},
        {"llm-upstream-connect-timeout", "2s", [](const Config& c) { return c.llm_proxy.connect_timeout_ms == 2000; },
         "2s"},
        {"llm-upstream-first-byte-timeout", "5s",
         [](const Config& c) { return c.llm_proxy.first_byte_timeout_ms == 5000; }, "5s"},
        {"llm-upstream-idle-timeout", "7s", [](const Config& c) { return c.llm_proxy.idle_timeout_ms == 7000; }, "7s"},
        {"llm-upstream-total-timeout", "2m", [](const Config& c) { return c.llm_proxy.total_timeout_ms == 120'000; },
         "2m"},
        {"llm-upstream-max-connections", "8", [](const Config& c) { return c.llm_proxy.max_connections == 8; }, "8"},
        {"llm-upstream-http2", "prior-knowledge",
         [](const Config& c) { return c.llm_proxy.http2 == "prior-knowledge"; }, "prior-knowledge"},
        {"llm-upstream-max-streams", "7", [](const Config& c) { return c.llm_proxy.max_streams == 7; }, "7"},
        {"llm-proxy-route", "/x", [](const Config& c) { return c.llm_proxy.route == "/x"; }, "/x"},
        {"llm-proxy-schema", "s.json", [](const Config& c) { return c.llm_proxy.schema_file == "s.json"; }, "s.json"},
        {"llm-proxy-format", "ndjson", [](const Config& c) { return c.llm_proxy.format == "ndjson"; }, "ndjson"},
        {"llm-proxy-events", "delta", [](const Config& c) { return c.llm_proxy.events == "delta"; }, "delta"},
        {"llm-proxy-model", "gpt", [](const Config& c) { return c.llm_proxy.model == "gpt"; }, "gpt"},
        {"llm-proxy-response-format", "false", [](const Config& c) { return !c.llm_proxy.response_format; }, "false"},
        {"llm-proxy-max-output", "2m", [](const Config& c) { return c.llm_proxy.max_output_bytes == 2 * 1024 * 1024; },
         "2m"},
        {"llm-proxy-max-request", "4k", [](const Config& c) { return c.llm_proxy.max_request_bytes == 4096; }, "4k"},
    };
    Registry registry = make_config_registry();
    ASSERT_EQ(std::size(cases), registry.options().size()) << "a registered option has no row here";
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        Config config;
        EXPECT_FALSE(c.landed(config)) << "the test value must differ from the default";
        registry.set(config, c.name, c.text);
        EXPECT_TRUE(c.landed(config));
        EXPECT_EQ(registry.get(config, c.name), c.read_back);
    }
}

TEST(Registry, DefaultsMatchTheStructs) {
    const std::pair<const char*, const char*> cases[] = {{"threads", "0"},
                                                         {"host", "127.0.0.1"},
                                                         {"port", "8000"},
                                                         {"unix", ""},
                                                         {"max-request-line", "8k"},
                                                         {"max-header-bytes", "16k"},
                                                         {"max-headers", "100"},
                                                         {"max-body-bytes", "1m"},
                                                         {"header-timeout", "10s"},
                                                         {"body-timeout", "30s"},
                                                         {"keepalive-timeout", "30s"},
                                                         {"write-timeout", "30s"},
                                                         {"handler-timeout", "1m"},
                                                         {"drain-timeout", "30s"},
                                                         {"max-connections", "10000"},
                                                         {"body-min-rate", "1k"},
                                                         {"write-min-rate", "1k"},
                                                         {"max-connections-per-ip", "0"},
                                                         {"reuse-port", "false"},
                                                         {"max-pipelined", "64"},
                                                         {"max-requests-per-connection", "10000"},
                                                         {"max-output-buffer", "4m"},
                                                         {"server-header", "slipstream"},
                                                         {"log-level", "info"},
                                                         {"access-log", "true"},
                                                         {"access-log-path", "-"},
                                                         {"health-path", "/health"},
                                                         {"livez-path", "/livez"},
                                                         {"readyz-path", "/readyz"},
                                                         {"metrics-path", "/metrics"},
                                                         {"cors-allow-origins", ""},
                                                         {"cors-allow-methods", "GET"},
                                                         {"cors-allow-credentials", "false"},
                                                         {"cors-max-age", "600"},
                                                         {"auth", "off"},
                                                         {"api-key-header", "X-API-Key"},
                                                         {"jwt-leeway", "1m"},
                                                         {"rate-limit", ""},
                                                         {"rate-limit-max-keys", "100000"},
                                                         {"config", ""}};
    Registry registry = make_config_registry();
    for (const auto& [name, text] : cases)
        EXPECT_EQ(registry.get(Config{}, name), text) << name;
}

TEST(Registry, EnvNamesAreDerivedAndUnique) {
    Registry registry = make_config_registry();
    EXPECT_EQ(registry.find("max-requests-per-connection")->env_name(), "SLIPSTREAM_MAX_REQUESTS_PER_CONNECTION");
    EXPECT_EQ(registry.find("config")->env_name(), "SLIPSTREAM_CONFIG");
    std::set<std::string> seen;
    for (const Option& o : registry.options()) {
        EXPECT_TRUE(seen.insert(o.env_name()).second) << o.name;
        EXPECT_EQ(registry.find_env(o.env_name()), &o);
        EXPECT_FALSE(o.help.empty()) << o.name;
    }
    EXPECT_EQ(registry.find("nope"), nullptr);
    EXPECT_EQ(registry.find_env("SLIPSTREAM_NOPE"), nullptr);
}

TEST(Registry, BadValuesHaveExactMessages) {
    struct Case {
        const char* name;
        const char* text;
        const char* error;
    };
    const Case errors[] = {
        {"port", "70000", "--port: 70000 is out of range (0..65535)"},
        {"port", "http", "--port: invalid integer 'http'"},
        {"port", "99999999999999999999", "--port: 99999999999999999999 is out of range (0..65535)"},
        {"threads", "2000", "--threads: 2000 is out of range (0..1024)"},
        {"max-headers", "0", "--max-headers: 0 is out of range (1..10000)"},
        {"max-body-bytes", "65g", "--max-body-bytes: 65g is out of range (0..64g)"},
        {"max-body-bytes", "1x", "--max-body-bytes: invalid size '1x' (expected bytes with optional suffix k, m or g)"},
        {"max-request-line", "8", "--max-request-line: 8 is out of range (16..1m)"},
        {"header-timeout", "10", "--header-timeout: invalid duration '10' (expected a number with unit ms, s, m or h)"},
        {"header-timeout", "0s", "--header-timeout: 0s is out of range (1ms..24h)"},
        {"drain-timeout", "25h", "--drain-timeout: 25h is out of range (0ms..24h)"},
        {"access-log", "maybe", "--access-log: invalid boolean 'maybe' (expected true or false)"},
        {"log-level", "loud", "--log-level: invalid value 'loud' (expected one of debug, info, warn, error, off)"},
        {"log-level", "fatal", "--log-level: invalid value 'fatal' (expected one of debug, info, warn, error, off)"},
        {"host", "", "--host: must not be empty"},
        {"access-log-path", "", "--access-log-path: must not be empty"},
        {"server-header", "a\r\nX-Evil: 1", "--server-header: must not contain control characters"},
        {"health-path", "health", "--health-path: must start with '/' or be 'off'"},
        {"metrics-path", "", "--metrics-path: must start with '/' or be 'off'"},
        {"metrics-path", "/a b", "--metrics-path: must not contain spaces or control characters"},
        {"cors-allow-origin-regex", "https://(a",
         "--cors-allow-origin-regex: 'https://(a' is not a valid RE2 pattern: missing ): https://(a"},
        {"cors-allow-origins", "https://a.example, ,https://b c",
         "--cors-allow-origins: 'https://b c' is not an origin (it holds whitespace or control characters)"},
        {"cors-allow-origins", ",", "--cors-allow-origins: ',' names no origin"},
        {"cors-allow-methods", "GET,P@ST", "--cors-allow-methods: 'P@ST' is not a method (an HTTP token)"},
        {"cors-allow-headers", "X Y", "--cors-allow-headers: 'X Y' is not a header name (an HTTP token)"},
        {"cors-expose-headers", "a/b", "--cors-expose-headers: 'a/b' is not a header name (an HTTP token)"},
        {"cors-max-age", "-1", "--cors-max-age: invalid integer '-1'"},
        {"auth", "yes", "--auth: invalid value 'yes' (expected one of off, optional, required)"},
        {"api-key-header", "", "--api-key-header: must not be empty"},
        {"rate-limit", "0/s", "--rate-limit: invalid rate \"0/s\": count must be at least 1"},
        {"database-url", "mysql://h/db",
         "--database-url: database URL must start with postgresql://, postgres:// or sqlite://"},
        {"database-pool-max", "0", "--database-pool-max: 0 is out of range (1..10000)"},
        {"store", "mysql://h/db", "--store: database URL must start with postgresql://, postgres:// or sqlite://"},
        {"session-ttl", "0ms", "--session-ttl: 0ms is out of range (1ms..720h)"},
        {"portt", "1", "unknown option 'portt'"},
    };
    Registry registry = make_config_registry();
    for (const auto& c : errors) {
        SCOPED_TRACE(std::string(c.name) + "=" + c.text);
        Config config;
        try {
            registry.set(config, c.name, c.text);
            ADD_FAILURE() << "no error";
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()), c.error);
        }
    }
}

TEST(Registry, CustomWhereNamesTheSource) {
    Registry registry = make_config_registry();
    Config config;
    EXPECT_THROW(
        try { registry.set(config, "port", "x", "SLIPSTREAM_PORT"); } catch (const std::invalid_argument& e) {
            EXPECT_STREQ(e.what(), "SLIPSTREAM_PORT: invalid integer 'x'");
            throw;
        },
        ConfigError);
}

TEST(Registry, RegistrationBugsThrowLogicError) {
    Registry registry;
    Option o;
    o.name = "x";
    EXPECT_THROW(registry.add(o), std::logic_error);  // no accessors
    o.set = [](Config&, const OptionValue&) {};
    o.get = [](const Config&) { return OptionValue{std::string()}; };
    registry.add(o);
    EXPECT_THROW(registry.add(o), std::logic_error);  // duplicate
    Option choice = o;
    choice.name = "y";
    choice.kind = OptionKind::kChoice;
    EXPECT_THROW(registry.add(choice), std::logic_error);  // no choices
    EXPECT_EQ(registry.options().size(), 1u);
}

}  // namespace
}  // namespace slipstream::app
