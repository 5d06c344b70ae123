// PyRoute: one Python route: its handler, argument plans and response rules; called on the executor thread.
#pragma once

#include <Python.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app_context.h"
#include "arg_plan.h"
#include "py_ref.h"
#include "response_cache.h"
#include "route_desc.h"
#include "slipstream/request.h"
#include "slipstream/responder.h"
#include "slipstream/response.h"
#include "slipstream/route_spec.h"

namespace slipstream::python {

class PendingReply;

/// Built at registration from a RouteDesc (slipstream/_core/route_desc.py, read by route_desc.h).
/// Every method that runs Python is noexcept: failures become the app's error response or a 500.
///
/// A route whose arguments include the reply (ArgKind::kReply, last) is self-replying: its handler (a runner from
/// slipstream/dependencies/runner.py or slipstream/middleware.py) answers through the PendingReply it gets, and
/// keeps running after the response was sent (background tasks, dependency exit code).
class PyRoute {
  public:
    /// Reads the description (GIL held). Throws std::invalid_argument on a malformed one.
    PyRoute(PyObject* desc, AppContext& ctx);

    /// The RouteSpec the server validates requests against before handle() runs.
    const RouteSpec& spec() const { return spec_; }
    /// Set for a route declared with cache_ttl: successful responses by request target (I/O threads read it).
    const ResponseCache* cache() const { return cache_.get(); }

    /// Executor thread, GIL held: builds the arguments, calls the handler, answers or parks a coroutine.
    void handle(const Request& request, Responder responder) const noexcept;
    /// Answers with a handler's return value (or its exception) once a parked coroutine ends.
    /// `status_override` (0: none) and `extra_headers` (a tuple of (str, str), or nullptr) are FastAPI's
    /// injected-Response values; they do not apply to a Response object the handler returned.
    void finish(const Request& request, Responder& responder, PyObject* result, int status_override = 0,
                PyObject* extra_headers = nullptr) const noexcept;
    /// `request_obj`: the Request object exception handlers get (nullptr: a new one is built).
    void fail(const Request& request, Responder& responder, PyObject* exc,
              PyObject* request_obj = nullptr) const noexcept;
    /// Sends a slipstream Response object as is.
    void send_object(const Request& request, Responder& responder, PyObject* obj) const noexcept;
    /// The prepared value's JSON bytes (a new bytes object), or nullptr with a Python exception set.
    PyObject* encode(PyObject* value) const;
    /// A new slipstream Request object for `request`, or nullptr with a Python exception set.
    PyObject* build_request(const Request& request) const;

  private:
    struct Arg {
        ArgKind kind = ArgKind::kValue;
        std::size_t index = 0;  // position in Request::arguments()
        std::string key;        // its key there
        std::unique_ptr<ArgPlan> plan;
        PyRef loc;  // FastAPI loc prefix for conversion errors, e.g. ("body",)
    };

    PyObject* call(const Request& request, Responder& responder, PyRef* reply_out, PyRef* failures_out) const;
    void handle_self_replying(PyObject* result, PyObject* reply) const noexcept;
    // A PendingReply taking `responder`; its task is cancelled when the client disconnects if the app asks so.
    PendingReply* make_reply(const Request& request, Responder& responder) const;
    void answer_forwarded(const Request& request, Responder& responder, PyObject* errors) const noexcept;
    void answer_object(const Request& request, Responder& responder, PyObject* obj, bool cacheable,
                       int status_override = 0, PyObject* extra_headers = nullptr) const;
    void send(const Request& request, Responder& responder, Response response, bool cacheable) const;
    void answer_error(const Request& request, Responder& responder, PyObject* helper, PyObject* exc, PyObject* loc,
                      PyObject* request_obj = nullptr) const;

    AppContext& ctx_;
    PyRef desc_;
    PyRef handler_;
    PyRef kwnames_;
    PyRef prepare_;                   // None or a callable: response_model validation/filtering -> JSON-compatible data
    std::vector<PyRef> path_params_;  // names (str) for Request.path_params
    std::vector<std::string> path_param_names_;
    std::vector<Arg> args_;
    RouteSpec spec_;
    std::unique_ptr<ResponseCache> cache_;
    bool is_coroutine_ = false;
    bool self_replying_ = false;
    int status_code_ = 200;
};

/// A raised Python exception as one object (traceback attached); clears the error indicator.
PyRef fetch_exception();

/// Sends Starlette's plain 500 ("Internal Server Error"), after reporting the current Python error if any.
void answer_internal_error(Responder& responder);

}  // namespace slipstream::python
