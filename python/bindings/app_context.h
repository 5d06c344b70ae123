// AppContext: the Python-side helpers a native app calls (from slipstream/_runtime.py), resolved once.
#pragma once

#include <Python.h>

#include <memory>

#include "disconnects.h"
#include "json_encoder.h"
#include "py_ref.h"

namespace slipstream::python {

class Executor;

/// Owned by NativeApp; used on the executor thread with the GIL held.
struct AppContext {
    /// `runtime`: the app's AppRuntime (slipstream/_runtime.py). Throws std::runtime_error when a helper is missing.
    explicit AppContext(PyObject* runtime);

    // resume(coro, yielded, reply, context, host): continue a suspended coroutine in a task (`host`'s, when
    // given), each step inside `context`
    PyRef resume;
    PyRef handle_error;       // handle_error(route, request, exc) -> response object
    PyRef conversion_failed;  // conversion_failed(route, request, ((exc, loc), ...), None) -> response object
    PyRef make_request;       // make_request(method, path, query, headers, body, path_params, client, route)
    // answer_forwarded(route, request, errors, reply) (slipstream/_forwarded.py): errors found in C++ (the body
    // text) or by argument conversions (((exc, loc), ...)) for a route with RouteSpec::forward_errors, raised in
    // Python; answers through the reply (may return a coroutine).
    PyRef answer_forwarded;
    PyRef render_name;    // "_slipstream_render": a Response object's (status, type, headers, body)
    PyRef response_type;  // slipstream.responses.Response
    // Optional (an AppRuntime has them): Response(background=...) after the response was sent.
    PyRef begin;            // begin(): counts work that runs after a response
    PyRef run_background;   // run_background(tasks): runs them, then ends that count
    PyRef background_name;  // "background"
    JsonEncoder encoder;
    // The runtime's `cancel_on_disconnect` (App(cancel_on_disconnect=True)): a suspended handler's task is
    // cancelled when its client disconnects; the runtime watches it as `runtime.disconnects`. Else null.
    std::shared_ptr<Disconnects> disconnects;
    // Optional (an AppRuntime has it): new_host() -> (loop, task, check, slot), a task for coroutines' first steps
    // (py_route.cpp, first_step), with asyncio's _enter_task / _leave_task. Null: steps run outside any task.
    PyRef new_host;
    PyRef enter_task;
    PyRef leave_task;
    // The host in use: its task is current during first steps until a coroutine suspends in it (then it is
    // that coroutine's task and a new host is made) or it was cancelled (`check()` is true). Null until needed.
    PyRef host;
    // The app's executor (set by NativeApp): a `def` handler's call is watched, and handed off when it blocks.
    Executor* executor = nullptr;
};

}  // namespace slipstream::python
