// PendingReply: a request whose coroutine handler suspended; answered when its asyncio task ends.
#pragma once

#include <Python.h>

#include <optional>

#include "slipstream/request.h"
#include "slipstream/responder.h"

namespace slipstream::python {

class PyRoute;

/// Owned by Python (the task's done-callback holds it). finish()/fail() answer once; a reply dropped
/// unanswered lets its Responder answer 500. Executor thread only.
class PendingReply {
  public:
    PendingReply(const PyRoute* route, const Request& request, Responder responder)
        : route_(route), request_(request), responder_(std::move(responder)) {}

    /// The coroutine returned `result`.
    void finish(PyObject* result);
    /// The coroutine raised `exc` (or was cancelled).
    void fail(PyObject* exc);
    bool done() const { return !responder_.has_value(); }

  private:
    const PyRoute* route_;
    Request request_;
    std::optional<Responder> responder_;
};

}  // namespace slipstream::python
