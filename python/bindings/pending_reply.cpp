// PendingReply: hands a parked coroutine's outcome back to its route.
#include "pending_reply.h"

#include "py_route.h"

namespace slipstream::python {

void PendingReply::finish(PyObject* result) {
    if (!responder_) return;
    Responder responder = std::move(*responder_);
    responder_.reset();
    route_->finish(request_, responder, result);
}

void PendingReply::fail(PyObject* exc) {
    if (!responder_) return;
    Responder responder = std::move(*responder_);
    responder_.reset();
    route_->fail(request_, responder, exc);
}

}  // namespace slipstream::python
