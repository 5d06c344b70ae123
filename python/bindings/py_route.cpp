// PyRoute: argument building, the handler call (vectorcall), coroutine stepping and the response.
#include "py_route.h"

#include <nanobind/nanobind.h>

#include <chrono>
#include <utility>

#include "executor.h"
#include "pending_reply.h"
#include "py_stream.h"

namespace nb = nanobind;

namespace slipstream::python {
namespace {

constexpr std::size_t kInlineArgs = 16;

PyObject* str_from(std::string_view s) {
    return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
}

PyObject* latin1(std::string_view s) {
    return PyUnicode_DecodeLatin1(s.data(), static_cast<Py_ssize_t>(s.size()), nullptr);
}

bool body_allowed(int status) {
    return status >= 200 && status != 204 && status != 304;
}

// The text of a str (UTF-8) or the bytes of a bytes object (an ASGI app's headers, sent as they are); nullptr
// otherwise (a Python exception set only when a str could not be encoded).
const char* text_of(PyObject* o, Py_ssize_t* size) {
    if (PyBytes_Check(o)) {
        *size = PyBytes_GET_SIZE(o);
        return PyBytes_AS_STRING(o);
    }
    return PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, size) : nullptr;
}

// Appends (str, str) or (bytes, bytes) pairs from a tuple to `response`; false with a Python exception set on a bad
// item.
bool append_headers(PyObject* headers, Response& response) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(headers); ++i) {
        PyObject* h = PyTuple_GET_ITEM(headers, i);
        Py_ssize_t nlen = 0, vlen = 0;
        const char* name =
            PyTuple_Check(h) && PyTuple_GET_SIZE(h) == 2 ? text_of(PyTuple_GET_ITEM(h, 0), &nlen) : nullptr;
        const char* value = name != nullptr ? text_of(PyTuple_GET_ITEM(h, 1), &vlen) : nullptr;
        if (value == nullptr) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "headers must be (str, str) or (bytes, bytes) pairs");
            return false;
        }
        response.headers.emplace_back(std::string(name, static_cast<std::size_t>(nlen)),
                                      std::string(value, static_cast<std::size_t>(vlen)));
    }
    return true;
}

// The raised exception, kept across calls into Python (restore() sets it again).
class SavedError {
  public:
    SavedError() {
#if PY_VERSION_HEX >= 0x030C0000
        value_ = PyErr_GetRaisedException();
#else
        PyErr_Fetch(&type_, &value_, &tb_);
#endif
    }
    SavedError(const SavedError&) = delete;
    SavedError& operator=(const SavedError&) = delete;
    void restore() {
#if PY_VERSION_HEX >= 0x030C0000
        PyErr_SetRaisedException(std::exchange(value_, nullptr));
#else
        PyErr_Restore(std::exchange(type_, nullptr), std::exchange(value_, nullptr), std::exchange(tb_, nullptr));
#endif
    }
    ~SavedError() {
        Py_XDECREF(value_);
#if PY_VERSION_HEX < 0x030C0000
        Py_XDECREF(type_);
        Py_XDECREF(tb_);
#endif
    }

  private:
    PyObject* value_ = nullptr;
#if PY_VERSION_HEX < 0x030C0000
    PyObject* type_ = nullptr;
    PyObject* tb_ = nullptr;
#endif
};

// The host task for the next first step (AppContext::host), made on first use and again once the last one
// adopted a coroutine or was cancelled; null (no error set) when the runtime has none or making one failed.
PyObject* current_host(AppContext& ctx) {
    if (!ctx.new_host) return nullptr;
    if (ctx.host) {
        // A cancelled host (a handler cancelled its own task, or the loop that made it stopped) is not reused.
        PyRef cancelled = PyRef::steal(PyObject_CallNoArgs(PyTuple_GET_ITEM(ctx.host.get(), 2)));
        int truth = cancelled ? PyObject_IsTrue(cancelled.get()) : -1;
        if (truth < 0) PyErr_WriteUnraisable(ctx.new_host.get());
        if (truth != 0) ctx.host = PyRef();
    }
    if (!ctx.host) {
        PyRef host = PyRef::steal(PyObject_CallNoArgs(ctx.new_host.get()));
        if (!host || !PyTuple_Check(host.get()) || PyTuple_GET_SIZE(host.get()) != 4) {
            if (host) PyErr_SetString(PyExc_TypeError, "new_host() must return a 4-tuple");
            PyErr_WriteUnraisable(ctx.new_host.get());
            return nullptr;
        }
        ctx.host = std::move(host);
    }
    return ctx.host.get();
}

// The first step of a handler's (or a runner's) coroutine, run as a Task's first step runs: in a new copy of the
// context and with the host task as asyncio's current task, so that anyio, asyncio.timeout and httpx work there.
// The host is no Task per request: one serves every first step that ends without suspending (~0.2 us each, where
// a Task made per request costs ~3.5 us: one more loop callback, its step, its registration); a coroutine that
// suspends is continued in that same task (hand_over), so current_task() stays the same for its whole life.
struct FirstStep {
    PySendResult result = PYGEN_ERROR;  // on PYGEN_ERROR the exception is set
    PyRef value;                        // what it returned or yielded
    PyRef context;                      // the context it ran in
    PyRef host;                         // (loop, task, check, slot) it ran in, or null
};

FirstStep first_step(AppContext& ctx, PyObject* coro) {
    FirstStep step;
    step.context = PyRef::steal(PyContext_CopyCurrent());
    if (!step.context) return step;
    PyObject* host = current_host(ctx);
    PyObject* loop_task[2] = {nullptr, nullptr};
    if (host != nullptr) {
        loop_task[0] = PyTuple_GET_ITEM(host, 0);
        loop_task[1] = PyTuple_GET_ITEM(host, 1);
        PyRef entered = PyRef::steal(PyObject_Vectorcall(ctx.enter_task.get(), loop_task, 2, nullptr));
        if (entered) {
            step.host = PyRef::borrow(host);
        } else {
            PyErr_Clear();  // already inside a task (not from the executor's drain): step in that one
        }
    }
    if (PyContext_Enter(step.context.get()) < 0) {
        if (step.host) {
            SavedError error;
            PyRef left = PyRef::steal(PyObject_Vectorcall(ctx.leave_task.get(), loop_task, 2, nullptr));
            if (!left) PyErr_Clear();
            error.restore();
        }
        return step;
    }
    PyObject* out = nullptr;
    step.result = PyIter_Send(coro, Py_None, &out);
    step.value = PyRef::steal(out);
    SavedError error;  // nothing when it returned or yielded
    if (PyContext_Exit(step.context.get()) < 0) PyErr_WriteUnraisable(coro);
    if (step.host) {
        PyRef left = PyRef::steal(PyObject_Vectorcall(ctx.leave_task.get(), loop_task, 2, nullptr));
        if (!left) PyErr_WriteUnraisable(ctx.leave_task.get());
        // A coroutine that suspended is now the host's: the next first step gets a new host.
        if (step.result == PYGEN_NEXT) ctx.host = PyRef();
    }
    error.restore();
    return step;
}

// A coroutine that suspended in its first step: `resume` continues it in its host task (or a new task) and
// answers through `reply`. False with a Python exception set when that failed.
bool hand_over(AppContext& ctx, PyObject* coro, FirstStep& step, PyObject* reply) {
    PyObject* argv[] = {coro, step.value.get(), reply, step.context.get(), step.host ? step.host.get() : Py_None};
    PyRef ok = PyRef::steal(PyObject_Vectorcall(ctx.resume.get(), argv, 5, nullptr));
    return static_cast<bool>(ok);
}

}  // namespace

PyRef fetch_exception() {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject* value = PyErr_GetRaisedException();
#else
    PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != nullptr && value != nullptr) PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
#endif
    if (value == nullptr) {
        Py_INCREF(Py_None);
        value = Py_None;
    }
    return PyRef::steal(value);
}

void answer_internal_error(Responder& responder) {
    if (PyErr_Occurred()) PyErr_WriteUnraisable(nullptr);
    responder.send(Response::text("Internal Server Error", 500));
}

PyRoute::PyRoute(PyObject* desc, AppContext& ctx) : ctx_(ctx), desc_(PyRef::borrow(desc)) {
    RouteDesc d = read_route_desc(desc);
    handler_ = std::move(d.handler);
    is_coroutine_ = d.is_coroutine;
    status_code_ = d.status_code;
    prepare_ = std::move(d.prepare);
    if (d.cache_ttl_s > 0)
        cache_ = std::make_unique<ResponseCache>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(d.cache_ttl_s)), 1024);
    for (PyRef& name : d.path_params) {
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(name.get(), &n);
        path_param_names_.emplace_back(s, static_cast<std::size_t>(n));
        path_params_.push_back(std::move(name));
    }
    spec_ = std::move(d.spec);
    // Handler arguments, all passed by keyword.
    kwnames_ = PyRef::steal(PyTuple_New(static_cast<Py_ssize_t>(d.args.size())));
    for (std::size_t i = 0; i < d.args.size(); ++i) {
        ArgDesc& a = d.args[i];
        PyTuple_SET_ITEM(kwnames_.get(), static_cast<Py_ssize_t>(i), PyRef(a.name).release());
        Arg arg;
        arg.kind = a.kind;
        if (a.kind == ArgKind::kReply) self_replying_ = true;
        if (a.kind == ArgKind::kValue) {
            arg.index = a.index;
            arg.key = std::move(a.key);
            arg.plan = ArgPlan::from_description(a.plan.get());
        }
        arg.loc = std::move(a.loc);
        args_.push_back(std::move(arg));
    }
}

PyObject* PyRoute::build_request(const Request& request) const {
    PyRef headers = PyRef::steal(PyList_New(0));
    if (!headers) return nullptr;
    bool failed = false;
    request.for_each_header([&](std::string_view name, std::string_view value) {
        if (failed) return;
        std::string lower(name);
        for (char& c : lower)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        // The engine decoded a body sent with Content-Encoding (or refused it): the handler gets the decoded bytes,
        // so the field that names the coding is not passed on (code that decodes it itself leaves it alone then).
        if (lower == "content-encoding") return;
        PyRef pair = PyRef::steal(Py_BuildValue("(NN)", latin1(lower), latin1(value)));
        failed = !pair || PyList_Append(headers.get(), pair.get()) < 0;
    });
    if (failed) return nullptr;
    PyRef path_params = PyRef::steal(PyDict_New());
    if (!path_params) return nullptr;
    for (std::size_t i = 0; i < path_params_.size(); ++i) {
        auto value = request.path_param(path_param_names_[i]);
        PyRef v = PyRef::steal(str_from(value.value_or("")));
        if (!v || PyDict_SetItem(path_params.get(), path_params_[i].get(), v.get()) < 0) return nullptr;
    }
    std::string_view body = request.body();
    PyObject* argv[] = {
        str_from(request.method()),
        str_from(request.path()),
        latin1(request.query_string()),
        headers.get(),
        PyBytes_FromStringAndSize(body.data(), static_cast<Py_ssize_t>(body.size())),
        path_params.get(),
        str_from(request.peer()),
        str_from(request.route()),
        request.principal().empty() ? Py_NewRef(Py_None) : str_from(request.principal()),
        // The credential's scopes, space-separated; None when it carries none (an API key, no JWT scope claim).
        request.scoped() ? str_from(request.scopes()) : Py_NewRef(Py_None),
    };
    PyObject* result = nullptr;
    if (argv[0] && argv[1] && argv[2] && argv[4] && argv[6] && argv[7] && argv[8] && argv[9])
        result = PyObject_Vectorcall(ctx_.make_request.get(), argv, 10, nullptr);
    for (int i : {0, 1, 2, 4, 6, 7, 8, 9})
        Py_XDECREF(argv[i]);
    return result;
}

// Builds every argument and calls the handler with keywords. When conversions raise, the handler is not called and
// *failures_out is a tuple of (exception, loc) for every validated argument whose conversion raised (pydantic
// reports each parameter's errors, as FastAPI does).
// The reply (ArgKind::kReply, always last) takes the responder: it is made only once every other argument was built.
PyObject* PyRoute::call(const Request& request, Responder& responder, PyRef* reply_out, PyRef* failures_out) const {
    const std::size_t n = args_.size();
    PyObject* inline_args[kInlineArgs + 1];
    std::vector<PyObject*> heap_args;
    PyObject** argv = inline_args;
    if (n + 1 > kInlineArgs + 1) {
        heap_args.resize(n + 1);
        argv = heap_args.data();
    }
    JsonView arguments = request.arguments();
    std::size_t built = 0;
    PyObject* result = nullptr;
    PyRef failures;  // list of (exception, loc), made at the first conversion failure
    for (; built < n; ++built) {
        const Arg& a = args_[built];
        PyObject* value = nullptr;
        if (a.kind == ArgKind::kRequest) {
            value = build_request(request);
        } else if (a.kind == ArgKind::kReply) {
            if (failures) break;
            nb::object reply = nb::cast(make_reply(request, responder), nb::rv_policy::take_ownership);
            *reply_out = PyRef::borrow(reply.ptr());
            value = reply.release().ptr();
        } else {
            auto [key, view] = arguments.member(a.index);
            if (key != a.key) view = arguments.get(a.key);
            value = a.plan->convert(view);
            if (value == nullptr) {
                // Keep going: the other arguments' conversion errors belong to the same 422.
                if (!failures) failures = PyRef::steal(PyList_New(0));
                PyRef exc = fetch_exception();
                PyRef pair = PyRef::steal(failures ? PyTuple_Pack(2, exc.get(), a.loc.get()) : nullptr);
                if (!pair || PyList_Append(failures.get(), pair.get()) < 0) break;
                value = Py_NewRef(Py_None);
            }
        }
        if (value == nullptr) break;
        argv[built + 1] = value;
    }
    if (built == n && !failures) {
        // A `def` handler may block: the executor hands the loop to another thread meanwhile (executor.h).
        const bool watched = !is_coroutine_ && !self_replying_ && ctx_.executor != nullptr;
        if (watched) ctx_.executor->begin_sync_call();
        result = PyObject_Vectorcall(handler_.get(), argv + 1, PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames_.get());
        if (watched) ctx_.executor->end_sync_call();
    }
    for (std::size_t i = 0; i < built; ++i)
        Py_DECREF(argv[i + 1]);
    if (failures && !PyErr_Occurred()) *failures_out = PyRef::steal(PyList_AsTuple(failures.get()));
    return result;
}

PendingReply* PyRoute::make_reply(const Request& request, Responder& responder) const {
    std::uint64_t cancel_id = 0;
    if (ctx_.disconnects) {  // App(cancel_on_disconnect=True): runtime.resume cancels the task when the client goes
        cancel_id = ctx_.disconnects->next_id();
        responder.on_cancel([disconnects = ctx_.disconnects, cancel_id] { disconnects->push(cancel_id); });
    }
    auto* reply = new PendingReply(this, request, std::move(responder));
    reply->set_cancel_id(cancel_id);
    return reply;
}

// A request whose validation errors the validator forwarded (RouteSpec::forward_errors): Python raises them as
// FastAPI would (RequestValidationError, or HTTPException 400), through the app's exception handlers and HTTP
// middleware, and answers through a PendingReply. `errors` is the 422/400 body text the validator wrote, or the
// tuple of (exception, loc) of the arguments whose Python conversion raised (see call()).
void PyRoute::answer_forwarded(const Request& request, Responder& responder, PyObject* errors) const noexcept {
    PyRef req = PyRef::steal(build_request(request));
    if (!req || errors == nullptr) return answer_internal_error(responder);
    nb::object reply = nb::cast(new PendingReply(this, request, std::move(responder)), nb::rv_policy::take_ownership);
    PyObject* argv[] = {desc_.get(), req.get(), errors, reply.ptr()};
    PyRef result = PyRef::steal(PyObject_Vectorcall(ctx_.answer_forwarded.get(), argv, 4, nullptr));
    handle_self_replying(result.get(), reply.ptr());
}

void PyRoute::handle(const Request& request, Responder responder) const noexcept {
    if (spec_.forward_errors) {
        JsonView arguments = request.arguments();
        if (arguments.kind() == JsonView::Kind::kObject && arguments.size() == 1) {
            auto [key, text] = arguments.member(0);
            if (key == kForwardedErrorsKey) {
                PyRef body_text = PyRef::steal(str_from(text.as_string()));
                return answer_forwarded(request, responder, body_text.get());
            }
        }
    }
    PyRef failures;
    PyRef reply;
    PyRef result = PyRef::steal(call(request, responder, &reply, &failures));
    // A self-replying route's request may be gone once it answered: `request` is not used past this point.
    if (reply) return handle_self_replying(result.get(), reply.get());
    if (!result) {
        // Conversion errors (parameters pydantic validates) take the forwarded path when the app handles
        // validation errors itself (middleware, handlers, dependencies that run first): FastAPI raises them there.
        if (failures && spec_.forward_errors) return answer_forwarded(request, responder, failures.get());
        if (failures) return answer_error(request, responder, ctx_.conversion_failed.get(), failures.get(), Py_None);
        PyRef exc = fetch_exception();
        answer_error(request, responder, ctx_.handle_error.get(), exc.get(), nullptr);
        return;
    }
    if (is_coroutine_ && PyCoro_CheckExact(result.get())) {
        // Step eagerly: most handlers finish without awaiting anything that suspends.
        FirstStep step = first_step(ctx_, result.get());
        if (step.result == PYGEN_RETURN) return finish(request, responder, step.value.get());
        if (step.result == PYGEN_ERROR) {
            PyRef exc = fetch_exception();
            return fail(request, responder, exc.get());
        }
        // It awaits a real future: its task goes on with it and the reply answers when it ends.
        PendingReply* reply = make_reply(request, responder);
        nb::object reply_obj = nb::cast(reply, nb::rv_policy::take_ownership);
        if (!hand_over(ctx_, result.get(), step, reply_obj.ptr())) {
            PyRef exc = fetch_exception();
            reply->fail(exc.get());
        }
        return;
    }
    finish(request, responder, result.get());
}

// The runner answers through its reply; here only what escaped it (an exception, or no answer at all).
void PyRoute::handle_self_replying(PyObject* result, PyObject* reply_obj) const noexcept {
    auto* reply = nb::inst_ptr<PendingReply>(nb::handle(reply_obj));
    PyRef outcome = PyRef::borrow(result);
    if (outcome && PyCoro_CheckExact(outcome.get())) {
        FirstStep step = first_step(ctx_, outcome.get());
        if (step.result == PYGEN_NEXT) {
            // It awaits a real future (or runs background work): its task goes on with it.
            if (!hand_over(ctx_, outcome.get(), step, reply_obj)) {
                PyRef exc = fetch_exception();
                reply->fail(exc.get());
            }
            return;
        }
        outcome = step.result == PYGEN_RETURN ? std::move(step.value) : PyRef();
    }
    if (!outcome) {
        PyRef exc = fetch_exception();
        if (reply->done()) {
            PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.get())), exc.get());
            PyErr_WriteUnraisable(handler_.get());
        } else {
            reply->fail(exc.get());
        }
        return;
    }
    if (!reply->done()) {
        PyErr_SetString(PyExc_RuntimeError, "the route's runner returned without answering");
        PyRef exc = fetch_exception();
        reply->fail(exc.get());
    }
}

void PyRoute::finish(const Request& request, Responder& responder, PyObject* result, int status_override,
                     PyObject* extra_headers) const noexcept {
    PyRef value = PyRef::borrow(result);
    // A Response object is sent as is; otherwise response_model / response_class rules apply first.
    int is_response = PyObject_IsInstance(result, ctx_.response_type.get());
    if (is_response == 1) return answer_object(request, responder, result, true);
    if (is_response == 0 && prepare_.get() != Py_None) {
        PyObject* argv[] = {result};
        value = PyRef::steal(PyObject_Vectorcall(prepare_.get(), argv, 1, nullptr));
        is_response = value ? PyObject_IsInstance(value.get(), ctx_.response_type.get()) : -1;
    }
    if (is_response < 0) {
        PyRef exc = fetch_exception();
        return fail(request, responder, exc.get());
    }
    if (is_response == 1) return answer_object(request, responder, value.get(), true, status_override, extra_headers);
    const int status = status_override != 0 ? status_override : status_code_;
    Response response(status);
    response.content_type = ContentType::constant("application/json");  // FastAPI sends it on a 204/304 too
    if (body_allowed(status)) {
        std::string body;
        if (!ctx_.encoder.encode(value.get(), body)) {
            PyRef exc = fetch_exception();
            return fail(request, responder, exc.get());
        }
        response = Response::json(std::move(body), status);
    }
    if (extra_headers != nullptr && PyTuple_Check(extra_headers) && !append_headers(extra_headers, response)) {
        PyRef exc = fetch_exception();
        return fail(request, responder, exc.get());
    }
    send(request, responder, std::move(response), true);
}

PyObject* PyRoute::encode(PyObject* value) const {
    std::string body;
    if (!ctx_.encoder.encode(value, body)) return nullptr;
    return PyBytes_FromStringAndSize(body.data(), static_cast<Py_ssize_t>(body.size()));
}

void PyRoute::send_object(const Request& request, Responder& responder, PyObject* obj) const noexcept {
    answer_object(request, responder, obj, false);
}

void PyRoute::send(const Request& request, Responder& responder, Response response, bool cacheable) const {
    if (cacheable && cache_) cache_->store(request.target(), response);
    Executor::reply(responder, std::move(response));
}

void PyRoute::fail(const Request& request, Responder& responder, PyObject* exc, PyObject* request_obj) const noexcept {
    answer_error(request, responder, ctx_.handle_error.get(), exc, nullptr, request_obj);
}

void PyRoute::answer_error(const Request& request, Responder& responder, PyObject* helper, PyObject* exc, PyObject* loc,
                           PyObject* request_obj) const {
    PyRef req = request_obj != nullptr && request_obj != Py_None ? PyRef::borrow(request_obj)
                                                                 : PyRef::steal(build_request(request));
    if (!req) return answer_internal_error(responder);
    PyObject* argv[] = {desc_.get(), req.get(), exc, loc};
    PyRef response = PyRef::steal(PyObject_Vectorcall(helper, argv, loc != nullptr ? 4 : 3, nullptr));
    if (!response) return answer_internal_error(responder);
    if (PyCoro_CheckExact(response.get())) {
        // An `async def` exception handler (its coroutine answers a Response, never raises): stepped as a
        // handler's first step, in the host task (the failed handler's, when it failed in its own first step);
        // one that suspends goes on in that task and answers through a reply.
        FirstStep step = first_step(ctx_, response.get());
        if (step.result == PYGEN_ERROR) return answer_internal_error(responder);
        if (step.result == PYGEN_NEXT) {
            PendingReply* reply = make_reply(request, responder);
            reply->set_error_answer();
            nb::object reply_obj = nb::cast(reply, nb::rv_policy::take_ownership);
            // On failure the reply is dropped unanswered: its Responder answers 500.
            if (!hand_over(ctx_, response.get(), step, reply_obj.ptr())) PyErr_WriteUnraisable(response.get());
            return;
        }
        response = std::move(step.value);
    }
    answer_object(request, responder, response.get(), false);
}

// A slipstream.responses.Response: its _slipstream_render() gives (status, content_type, headers, body).
void PyRoute::answer_object(const Request& request, Responder& responder, PyObject* obj, bool cacheable,
                            int status_override, PyObject* extra_headers) const {
    PyRef rendered = PyRef::steal(PyObject_CallMethodNoArgs(obj, ctx_.render_name.get()));
    if (!rendered || !PyTuple_Check(rendered.get()) || PyTuple_GET_SIZE(rendered.get()) != 4) {
        if (rendered) PyErr_SetString(PyExc_TypeError, "_slipstream_render() must return a 4-tuple");
        return answer_internal_error(responder);
    }
    PyObject* status = PyTuple_GET_ITEM(rendered.get(), 0);
    PyObject* content_type = PyTuple_GET_ITEM(rendered.get(), 1);
    PyObject* headers = PyTuple_GET_ITEM(rendered.get(), 2);
    PyObject* body = PyTuple_GET_ITEM(rendered.get(), 3);
    Response response(static_cast<int>(PyLong_AsLong(status)));
    if (PyErr_Occurred() || !PyTuple_Check(headers)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "bad rendered response");
        return answer_internal_error(responder);
    }
    if (content_type != Py_None) {
        Py_ssize_t n = 0;
        const char* ct = text_of(content_type, &n);
        if (ct == nullptr) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "the content type must be str or bytes");
            return answer_internal_error(responder);
        }
        response.content_type = std::string(ct, static_cast<std::size_t>(n));
    }
    if (!append_headers(headers, response)) return answer_internal_error(responder);
    if (extra_headers != nullptr && PyTuple_Check(extra_headers) && !append_headers(extra_headers, response))
        return answer_internal_error(responder);
    if (status_override != 0) response.status = status_override;
    // A streamed body (StreamingResponse, FileResponse, SSE) answers through a StreamWriter (py_stream.cpp).
    if (!PyBytes_Check(body)) return answer_body_object(request, responder, std::move(response), body);
    if (body_allowed(response.status))
        response.body.assign(PyBytes_AS_STRING(body), static_cast<std::size_t>(PyBytes_GET_SIZE(body)));
    // Response(background=...): run after the response is handed over (a self-replying route runs its own).
    PyRef background;
    if (!self_replying_ && ctx_.run_background) {
        background = PyRef::steal(PyObject_GetAttr(obj, ctx_.background_name.get()));
        if (!background) PyErr_Clear();
        if (background.get() == Py_None) background = PyRef();
    }
    if (background) {
        PyRef begun = PyRef::steal(PyObject_CallNoArgs(ctx_.begin.get()));
        if (!begun) PyErr_WriteUnraisable(ctx_.begin.get());
    }
    send(request, responder, std::move(response), cacheable && !background);
    if (background) {
        PyObject* arg = background.get();
        PyRef ran = PyRef::steal(PyObject_Vectorcall(ctx_.run_background.get(), &arg, 1, nullptr));
        if (!ran) PyErr_WriteUnraisable(ctx_.run_background.get());
    }
}

}  // namespace slipstream::python
