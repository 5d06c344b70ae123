// NativeLlmProxy: slipstream::LlmProxy for the package's slipstream.llm_upstream (validated upstream LLM routes).
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds to the module:
/// - `NativeLlmProxy(options: dict)`: one OpenAI-compatible upstream (its connection pool and client thread).
///   Option keys: base_url (required), chat_path, api_key, headers (a list of (name, value) pairs), verify_tls,
///   ca_file, connect_timeout_ms, first_byte_timeout_ms, idle_timeout_ms, total_timeout_ms, max_connections,
///   max_waiting. An unknown key, a bad value, a base_url that is not an absolute http(s) URL or a CA file that
///   cannot be loaded raise ValueError.
///   `mount(native_app, path, route: dict)` registers POST path (before the app starts), answered in C++ without
///   the GIL. Route keys: schema (JSON text, required), format ("sse" | "ndjson"), events ("partial" | "delta"),
///   default_model, add_response_format, strict, schema_name, max_output_bytes, max_request_bytes. A schema that
///   does not compile, a route clash or a bad key raise ValueError.
///   `stats()`: the proxy's counters (started, refused, completed, invalid, failed, cancelled, active).
///   `start(body: str, schema: NativeLlmSchema, options: dict, sink)` -> NativeLlmCall: one call (LlmProxy::start);
///   options as a route's, without schema, format and max_request_bytes. `sink(kind, payload, status,
///   retry_after)` is called from the proxy's thread with the GIL taken: ("refused", the error body, status,
///   Retry-After) once, or ("start", "", 200, "") then each event (kind, its JSON, 200, "") up to "complete" or
///   "error"; a bad request is refused at once, inside start(). Nothing is called after cancel().
/// - `NativeLlmSchema(schema_json)`: a JSON Schema compiled once (ValueError when it does not compile).
/// - `NativeLlmCall`: cancel(), pause(), resume(), done(), from any thread (they release the GIL).
void register_llm_proxy(nanobind::module_& m);

}  // namespace slipstream::python
