// PendingReply: hands a parked coroutine's outcome, or a runner's answer, back to its route.
#include "pending_reply.h"

#include "asgi_scope.h"
#include "py_route.h"

namespace slipstream::python {

void PendingReply::finish(PyObject* result, int status, PyObject* headers) {
    if (!responder_) return;
    Responder responder = std::move(*responder_);
    responder_.reset();
    if (error_answer_) return route_->send_object(request_, responder, result);
    route_->finish(request_, responder, result, status, headers);
}

void PendingReply::fail(PyObject* exc, PyObject* request_obj) {
    if (!responder_) return;
    Responder responder = std::move(*responder_);
    responder_.reset();
    route_->fail(request_, responder, exc, request_obj);
}

void PendingReply::send(PyObject* response) {
    if (!responder_) return;
    Responder responder = std::move(*responder_);
    responder_.reset();
    route_->send_object(request_, responder, response);
}

PyObject* PendingReply::encode(PyObject* value) const {
    return route_->encode(value);
}

PyObject* PendingReply::make_request() const {
    if (!responder_) {
        PyErr_SetString(PyExc_RuntimeError, "the request was already answered");
        return nullptr;
    }
    return route_->build_request(request_);
}

PyObject* PendingReply::asgi_scope(PyObject* base, PyObject* state) const {
    if (!responder_) {
        PyErr_SetString(PyExc_RuntimeError, "the request was already answered");
        return nullptr;
    }
    return asgi_http_scope(request_, base, state);
}

PyObject* PendingReply::body() const {
    if (!responder_) {
        PyErr_SetString(PyExc_RuntimeError, "the request was already answered");
        return nullptr;
    }
    std::string_view b = request_.body();
    return PyBytes_FromStringAndSize(b.data(), static_cast<Py_ssize_t>(b.size()));
}

}  // namespace slipstream::python
