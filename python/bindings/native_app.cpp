// NativeApp: route registration into slipstream::App, and the lifecycle of server + executor.
#include "native_app.h"

#include <nanobind/nanobind.h>
#include <pthread.h>
#include <signal.h>

#include <stdexcept>
#include <thread>

#include "json_text.h"
#include "py_finalizing.h"
#include "server_options_from_dict.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

// What a NativeApp owns, handed to a helper thread when the app is freed on its own executor thread.
struct Orphan {
    std::unique_ptr<App> app;
    std::unique_ptr<Executor> executor;
    std::vector<std::unique_ptr<PyRoute>> routes;
    std::unique_ptr<AppContext> context;
    PyRef runner;
};

// The helper thread: the normal shutdown order (drain while the executor still answers, then stop the executor),
// then the Python objects are freed with the GIL, unless the interpreter is already going away. Not noexcept:
// when finalization starts between the check and PyGILState_Ensure, CPython ends this thread with a forced
// unwind (pthread_exit), which a noexcept frame would turn into std::terminate.
void reap(Orphan* raw) {
    std::unique_ptr<Orphan> orphan(raw);
    try {
        orphan->app->wait();
    } catch (const std::exception&) {  // a failed join: stop the executor all the same
    }
    orphan->executor->request_stop();
    (void)orphan->executor->join();
    orphan->app.reset();
    if (interpreter_finalizing()) {
        (void)orphan.release();  // no GIL to take any more; the process is exiting
        census::leave();
        return;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    orphan.reset();
    PyGILState_Release(gil);
    census::leave();
}

}  // namespace

NativeApp::NativeApp(PyObject* options, PyObject* runtime)
    : context_(std::make_unique<AppContext>(runtime)),
      runner_(PyRef::steal(PyObject_GetAttrString(runtime, "run_executor"))),
      executor_(std::make_unique<Executor>()),
      app_(std::make_unique<App>(server_options_from_dict(options))) {
    context_->executor = executor_.get();
    if (!runner_) {
        PyErr_Clear();
        throw std::invalid_argument("slipstream._runtime lacks run_executor");
    }
}

NativeApp::~NativeApp() {
    if (started_ && !finished_) {
        if (executor_->on_own_thread()) {
            release_from_executor_thread();
            return;
        }
        app_->stop();
        try {
            wait();
        } catch (const std::exception&) {  // nothing may escape a destructor; wait() throws only on the executor
        }
    }
    // The App (and its I/O threads) go first, then the routes they point to.
    {
        nb::gil_scoped_release release;
        app_.reset();
    }
}

void NativeApp::add_route(const std::string& method, const std::string& pattern, PyObject* route_desc) {
    if (started_) throw std::invalid_argument("routes must be added before the app starts");
    auto route = std::make_unique<PyRoute>(route_desc, *context_);
    Executor* executor = executor_.get();
    const PyRoute* target = route.get();
    const ResponseCache* cache = route->cache();
    AsyncHandler handler = [executor, target, cache](Request& request, Responder responder) {
        // A cached route's fresh response is answered here, on the I/O thread, without the GIL.
        if (cache != nullptr)
            if (auto hit = cache->lookup(request.target())) {
                responder.send(std::move(*hit));
                return;
            }
        executor->submit(request, std::move(responder), target);
    };
    const RouteSpec& spec = route->spec();
    if (spec.params.empty() && spec.body.empty() && !spec.max_body_bytes)
        app_->route_async(method, pattern, std::move(handler));
    else
        app_->route_async(method, pattern, std::move(handler), spec);
    routes_.push_back(std::move(route));
}

void NativeApp::add_static_route(const std::string& method, const std::string& pattern, int status,
                                 const std::string& content_type,
                                 std::vector<std::pair<std::string, std::string>> headers, std::string body) {
    if (started_) throw std::invalid_argument("routes must be added before the app starts");
    Response response(status);
    response.content_type = content_type;
    response.headers = std::move(headers);
    response.body = std::move(body);
    app_->route(method, pattern, [response = std::move(response)](Request&) { return response; });
}

void NativeApp::add_echo_route(const std::string& method, const std::string& pattern, const std::string& body_schema,
                               int status) {
    if (started_) throw std::invalid_argument("routes must be added before the app starts");
    RouteSpec spec;
    BodySpec body;
    body.name = "body";
    body.schema_json = body_schema;
    spec.body.push_back(std::move(body));
    app_->route(
        method, pattern,
        [status](Request& request) {
            std::string text;
            append_json(text, request.arguments().get("body"));
            return Response::json(std::move(text), status);
        },
        std::move(spec));
}

void NativeApp::listen(const std::string& host, int port) {
    if (port < 0 || port > 65535) throw std::invalid_argument("port out of range");
    app_->listen(host, static_cast<std::uint16_t>(port));
}

void NativeApp::start() {
    if (started_) throw std::invalid_argument("the app was already started");
    executor_->start(runner_.get());
    started_ = true;
    nb::gil_scoped_release release;
    app_->start();
}

int NativeApp::run() {
    if (started_) throw std::invalid_argument("the app was already started");
    // SIGINT/SIGTERM go to the server's signalfd: block them here before any of our threads exist.
    sigset_t stop_signals, previous;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
    executor_->start(runner_.get());
    started_ = true;
    int rc = 0;
    {
        nb::gil_scoped_release release;
        try {
            rc = app_->run();
        } catch (...) {
            pthread_sigmask(SIG_SETMASK, &previous, nullptr);
            app_->stop();
            nb::gil_scoped_acquire acquire;
            stop_executor();
            throw;
        }
    }
    stop_executor();
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return rc;
}

void NativeApp::stop() {
    app_->stop();
}

void NativeApp::wait() {
    if (!started_ || finished_) return;
    if (executor_->on_own_thread())
        throw std::runtime_error(
            "the server cannot be waited for on its own executor thread (in a handler, or code it runs): call stop() "
            "there and wait() on another thread");
    {
        nb::gil_scoped_release release;
        app_->wait();
    }
    stop_executor();
}

void NativeApp::stop_executor() {
    executor_->request_stop();
    {
        nb::gil_scoped_release release;
        (void)executor_->join();  // callers are never the executor thread (see wait() and the destructor)
    }
    finished_ = true;
}

void NativeApp::release_from_executor_thread() noexcept {
    // The executor thread is inside a handler here and goes on running it after this destructor returns, so
    // everything it uses moves to a helper thread that frees it once that thread has stopped.
    app_->stop();
    auto orphan = std::make_unique<Orphan>(
        Orphan{std::move(app_), std::move(executor_), std::move(routes_), std::move(context_), std::move(runner_)});
    finished_ = true;
    try {
        census::enter();  // the helper frees Python objects at its end
        std::thread(reap, orphan.get()).detach();
    } catch (const std::system_error&) {
        // No thread to spare: the executor thread still uses these, so they are kept (leaked), never freed here.
        census::leave();
    }
    (void)orphan.release();  // reap() owns it now (or, without a thread, nobody)
}

int NativeApp::port() const {
    return app_->port();
}

}  // namespace slipstream::python
