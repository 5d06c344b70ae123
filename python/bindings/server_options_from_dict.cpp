// ServerOptions from a Python dict: one table of field names.
#include "server_options_from_dict.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace slipstream::python {
namespace {

template <typename T>
void set_unsigned(PyObject* v, T& field, const std::string& key) {
    unsigned long long x = PyLong_Check(v) && !PyBool_Check(v) ? PyLong_AsUnsignedLongLong(v) : 0;
    if (!PyLong_Check(v) || PyBool_Check(v) || PyErr_Occurred() || x > static_cast<unsigned long long>(T(-1))) {
        PyErr_Clear();
        throw std::invalid_argument("option '" + key + "' must be a non-negative int in range");
    }
    field = static_cast<T>(x);
}

void set_bool(PyObject* v, bool& field, const std::string& key) {
    if (!PyBool_Check(v)) throw std::invalid_argument("option '" + key + "' must be a bool");
    field = v == Py_True;
}

void set_string(PyObject* v, std::string& field, const std::string& key) {
    const char* s = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : nullptr;
    if (s == nullptr) {
        PyErr_Clear();
        throw std::invalid_argument("option '" + key + "' must be a str");
    }
    field = s;
}

// A capsule's shared pointer (the capsule's name says its type).
template <typename T>
void set_shared(PyObject* v, std::shared_ptr<T>& field, const char* name, const std::string& key) {
    void* p = PyCapsule_IsValid(v, name) ? PyCapsule_GetPointer(v, name) : nullptr;
    if (p == nullptr) {
        PyErr_Clear();
        throw std::invalid_argument("option '" + key + "' must be the engine object's capsule (" + name + ")");
    }
    field = *static_cast<std::shared_ptr<T>*>(p);
}

}  // namespace

ServerOptions server_options_from_dict(PyObject* options) {
    ServerOptions o;
    if (options == Py_None) return o;
    if (!PyDict_Check(options)) throw std::invalid_argument("options must be a dict");
    using Setter = std::function<void(PyObject*, const std::string&)>;
    const std::pair<std::string_view, Setter> table[] = {
        {"threads", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.threads, k); }},
        {"max_request_line", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_request_line, k); }},
        {"max_header_bytes", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_header_bytes, k); }},
        {"max_headers", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_headers, k); }},
        {"max_body_bytes", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_body_bytes, k); }},
        {"header_timeout_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.header_timeout_ms, k); }},
        {"body_timeout_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.body_timeout_ms, k); }},
        {"keepalive_timeout_ms",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.keepalive_timeout_ms, k); }},
        {"write_timeout_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.write_timeout_ms, k); }},
        {"handler_timeout_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.handler_timeout_ms, k); }},
        {"max_connections", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_connections, k); }},
        {"max_requests_per_connection",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_requests_per_connection, k); }},
        {"max_pipelined", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_pipelined, k); }},
        {"max_output_buffer", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_output_buffer, k); }},
        {"server_header", [&](PyObject* v, const std::string& k) { set_string(v, o.server_header, k); }},
        {"request_id_response", [&](PyObject* v, const std::string& k) { set_bool(v, o.request_id_response, k); }},
        {"drain_timeout_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.drain_timeout_ms, k); }},
        {"body_min_rate", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.body_min_rate, k); }},
        {"write_min_rate", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.write_min_rate, k); }},
        {"max_connections_per_ip",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_connections_per_ip, k); }},
        {"reuse_port", [&](PyObject* v, const std::string& k) { set_bool(v, o.reuse_port, k); }},
        {"access_log_flush_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.access_log_flush_ms, k); }},
        {"health_path", [&](PyObject* v, const std::string& k) { set_string(v, o.health_path, k); }},
        {"livez_path", [&](PyObject* v, const std::string& k) { set_string(v, o.livez_path, k); }},
        {"readyz_path", [&](PyObject* v, const std::string& k) { set_string(v, o.readyz_path, k); }},
        {"metrics_path", [&](PyObject* v, const std::string& k) { set_string(v, o.metrics_path, k); }},
        {"access_log", [&](PyObject* v, const std::string& k) { set_bool(v, o.access_log, k); }},
        {"request_metrics", [&](PyObject* v, const std::string& k) { set_bool(v, o.request_metrics, k); }},
        {"fastapi_route_errors", [&](PyObject* v, const std::string& k) { set_bool(v, o.fastapi_route_errors, k); }},
        {"validation_problem_json", [&](PyObject* v, const std::string& k) { set_bool(v, o.validation_problem_json, k); }},
        {"compression", [&](PyObject* v, const std::string& k) { set_bool(v, o.compression, k); }},
        {"compression_min_size",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.compression_min_size, k); }},
        {"compression_encodings",
         [&](PyObject* v, const std::string& k) { set_string(v, o.compression_encodings, k); }},
        {"compression_types", [&](PyObject* v, const std::string& k) { set_string(v, o.compression_types, k); }},
        {"gzip_level", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.gzip_level, k); }},
        {"brotli_level", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.brotli_level, k); }},
        {"zstd_level", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.zstd_level, k); }},
        {"compress_sse", [&](PyObject* v, const std::string& k) { set_bool(v, o.compress_sse, k); }},
        {"request_decompression",
         [&](PyObject* v, const std::string& k) { set_bool(v, o.request_decompression, k); }},
        {"max_decompressed_body_bytes",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_decompressed_body_bytes, k); }},
        {"max_decompression_ratio",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_decompression_ratio, k); }},
        {"sse_heartbeat_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.sse_heartbeat_ms, k); }},
        {"stream_high_water_bytes",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.stream_high_water_bytes, k); }},
        {"tls_cert_file", [&](PyObject* v, const std::string& k) { set_string(v, o.tls_cert_file, k); }},
        {"tls_key_file", [&](PyObject* v, const std::string& k) { set_string(v, o.tls_key_file, k); }},
        {"tls_client_ca_file", [&](PyObject* v, const std::string& k) { set_string(v, o.tls_client_ca_file, k); }},
        {"tls_handshake_timeout_ms",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.tls_handshake_timeout_ms, k); }},
        {"http2", [&](PyObject* v, const std::string& k) { set_bool(v, o.http2, k); }},
        {"io_uring", [&](PyObject* v, const std::string& k) { set_bool(v, o.io_uring, k); }},
        {"h2_max_concurrent_streams",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_max_concurrent_streams, k); }},
        {"h2_max_header_list_size",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_max_header_list_size, k); }},
        {"h2_initial_window_size",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_initial_window_size, k); }},
        {"h2_connection_window_size",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_connection_window_size, k); }},
        {"h2_reset_burst", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_reset_burst, k); }},
        {"h2_reset_rate", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_reset_rate, k); }},
        {"h2_control_burst", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_control_burst, k); }},
        {"h2_control_rate", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_control_rate, k); }},
        {"h2_max_continuations",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.h2_max_continuations, k); }},
        {"max_handlers_in_flight",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.max_handlers_in_flight, k); }},
        {"cors_allow_origins", [&](PyObject* v, const std::string& k) { set_string(v, o.cors_allow_origins, k); }},
        {"cors_allow_origin_regex",
         [&](PyObject* v, const std::string& k) { set_string(v, o.cors_allow_origin_regex, k); }},
        {"cors_allow_methods", [&](PyObject* v, const std::string& k) { set_string(v, o.cors_allow_methods, k); }},
        {"cors_allow_headers", [&](PyObject* v, const std::string& k) { set_string(v, o.cors_allow_headers, k); }},
        {"cors_allow_credentials",
         [&](PyObject* v, const std::string& k) { set_bool(v, o.cors_allow_credentials, k); }},
        {"cors_expose_headers", [&](PyObject* v, const std::string& k) { set_string(v, o.cors_expose_headers, k); }},
        {"cors_allow_private_network",
         [&](PyObject* v, const std::string& k) { set_bool(v, o.cors_allow_private_network, k); }},
        {"auth", [&](PyObject* v, const std::string& k) { set_string(v, o.auth, k); }},
        {"api_keys_file", [&](PyObject* v, const std::string& k) { set_string(v, o.api_keys_file, k); }},
        {"api_key_header", [&](PyObject* v, const std::string& k) { set_string(v, o.api_key_header, k); }},
        {"jwt_secret_file", [&](PyObject* v, const std::string& k) { set_string(v, o.jwt_secret_file, k); }},
        {"jwt_public_key_file", [&](PyObject* v, const std::string& k) { set_string(v, o.jwt_public_key_file, k); }},
        {"jwt_issuer", [&](PyObject* v, const std::string& k) { set_string(v, o.jwt_issuer, k); }},
        {"jwt_audience", [&](PyObject* v, const std::string& k) { set_string(v, o.jwt_audience, k); }},
        {"jwt_leeway_ms", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.jwt_leeway_ms, k); }},
        {"auth_public_paths", [&](PyObject* v, const std::string& k) { set_string(v, o.auth_public_paths, k); }},
        {"auth_resource_metadata",
         [&](PyObject* v, const std::string& k) { set_string(v, o.auth_resource_metadata, k); }},
        {"rate_limit", [&](PyObject* v, const std::string& k) { set_string(v, o.rate_limit, k); }},
        {"rate_limit_burst", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.rate_limit_burst, k); }},
        {"rate_limit_max_keys", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.rate_limit_max_keys, k); }},
        {"rate_limit_store",
         [&](PyObject* v, const std::string& k) { set_shared(v, o.rate_limit_store, kRateLimitStoreCapsule, k); }},
        {"rate_limit_store_failure",
         [&](PyObject* v, const std::string& k) { set_string(v, o.rate_limit_store_failure, k); }},
        {"rate_limit_store_batch",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.rate_limit_store_batch, k); }},
        {"rate_limit_store_in_flight",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.rate_limit_store_in_flight, k); }},
        {"rate_limit_store_retry_ms",
         [&](PyObject* v, const std::string& k) { set_unsigned(v, o.rate_limit_store_retry_ms, k); }},
        {"issued_credentials",
         [&](PyObject* v, const std::string& k) {
             set_shared(v, o.issued_credentials, kIssuedCredentialsCapsule, k);
         }},
        {"cors_max_age", [&](PyObject* v, const std::string& k) { set_unsigned(v, o.cors_max_age, k); }},
        {"access_log_fd", [&](PyObject* v, const std::string& k) {
             long fd = PyLong_Check(v) ? PyLong_AsLong(v) : -1;
             if (fd < 0 || PyErr_Occurred()) {
                 PyErr_Clear();
                 throw std::invalid_argument("option '" + k + "' must be a file descriptor");
             }
             o.access_log_fd = static_cast<int>(fd);
         }},
    };
    Py_ssize_t pos = 0;
    PyObject *key = nullptr, *value = nullptr;
    while (PyDict_Next(options, &pos, &key, &value)) {
        const char* k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
        if (k == nullptr) {
            PyErr_Clear();
            throw std::invalid_argument("option names must be str");
        }
        bool found = false;
        for (const auto& [name, setter] : table) {
            if (name == k) {
                setter(value, k);
                found = true;
                break;
            }
        }
        if (!found) throw std::invalid_argument(std::string("unknown server option '") + k + "'");
    }
    return o;
}

}  // namespace slipstream::python
