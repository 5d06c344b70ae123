// PendingReply: a request answered later: by a parked coroutine's outcome, or by a self-replying route's runner.
#pragma once

#include <Python.h>

#include <cstdint>
#include <optional>

#include "slipstream/request.h"
#include "slipstream/responder.h"

namespace slipstream::python {

class PyRoute;

/// Owned by Python (the task's done-callback, or the runner, holds it). finish()/fail()/send() answer once; a
/// reply dropped unanswered lets its Responder answer 500. Executor thread only, GIL held. Once answered, the
/// request it views may be gone: make_request() then fails.
class PendingReply {
  public:
    PendingReply(const PyRoute* route, const Request& request, Responder responder)
        : route_(route), request_(request), responder_(std::move(responder)) {}

    /// Answers with `result` (response rules applied); `status` (0: the route's) and `headers` (a tuple of
    /// (str, str) or nullptr) come from an injected Response.
    void finish(PyObject* result, int status = 0, PyObject* headers = nullptr);
    /// Answers with the app's response for `exc`; `request_obj` is the Request handlers see (nullptr: a new one).
    void fail(PyObject* exc, PyObject* request_obj = nullptr);
    /// Sends a slipstream Response object as is.
    void send(PyObject* response);
    /// The route's JSON encoding of `value` (a new bytes object), or nullptr with a Python exception set.
    PyObject* encode(PyObject* value) const;
    /// A new Request object, or nullptr with a Python exception set (also once answered).
    PyObject* make_request() const;
    /// The request's ASGI `http` scope (asgi_scope.h: `base` copied, `state` copied into it), or nullptr with a
    /// Python exception set (also once answered).
    PyObject* asgi_scope(PyObject* base, PyObject* state) const;
    /// The request body as a new bytes object, or nullptr with a Python exception set (also once answered).
    PyObject* body() const;
    bool done() const { return !responder_.has_value(); }
    /// Its id in AppContext::disconnects (0: its task is not cancelled when the client disconnects).
    std::uint64_t cancel_id() const { return cancel_id_; }
    void set_cancel_id(std::uint64_t id) { cancel_id_ = id; }
    /// The reply of an exception handler's coroutine: finish() sends its Response as is (no response rules).
    void set_error_answer() { error_answer_ = true; }

  private:
    const PyRoute* route_;
    Request request_;
    std::optional<Responder> responder_;
    std::uint64_t cancel_id_ = 0;
    bool error_answer_ = false;
};

}  // namespace slipstream::python
