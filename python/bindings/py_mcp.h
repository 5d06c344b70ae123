// NativeMcp: the engine's MCP server (include/slipstream/mcp.h) for the package's slipstream.mcp.
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds to the module:
/// - `NativeMcp(config: dict)`: an mcp::Server (config keys: ServerConfig's field names; an unknown key or a bad
///   value raises ValueError). `add_tool`, `add_resource`, `add_template`, `add_prompt`, `set_completion` register
///   with a handler key chosen by the package; `remove_tool` / `remove_resource` / `remove_prompt`,
///   `resource_updated`. Every call of a handler is queued with its key and an eventfd (`fd`) is written once per
///   batch, on the engine's thread, without the GIL; `drain()` returns `[(key, call_id, NativeCall | None)]`, None
///   meaning "call `call_id` was cancelled". `mount(native_app, path)` serves Streamable HTTP on a NativeApp (before
///   it starts); `serve_stdio(in_fd, out_fd)` serves stdio until end of input (the GIL released); `stop()`.
/// - `NativeCall`: one call: `arguments_json`, `meta_json`, `name`, `session_id`, `principal`, `request_id`,
///   `ref_json` (completions), `cancelled()`, `progress()`, `log()`, `reply()`, `reply_json()`, `fail()`.
void register_mcp(nanobind::module_& m);

}  // namespace slipstream::python
