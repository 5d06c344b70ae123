// NativeApp: the slipstream::App behind a Python App: routes, listeners, the executor, start/run/stop.
#pragma once

#include <Python.h>

#include <memory>
#include <string>
#include <vector>

#include "app_context.h"
#include "executor.h"
#include "py_route.h"
#include "slipstream/app.h"

namespace slipstream::python {

/// Created by the Python App when it starts serving (the route table is handed over once).
/// Methods run on the thread that owns the Python App, with the GIL held unless noted.
class NativeApp {
  public:
    /// `options`: a dict of ServerOptions fields by name; `runtime`: the app's AppRuntime (slipstream/_runtime.py).
    /// Throws std::invalid_argument on an unknown option or a bad value.
    NativeApp(PyObject* options, PyObject* runtime);
    /// Stops and drains a started server. Never throws and never joins the executor thread from itself: run there
    /// (the garbage collector freeing the app inside a handler), it hands the drain and the cleanup to a helper
    /// thread and returns at once.
    ~NativeApp();

    /// Registers a route; throws std::invalid_argument (bad pattern, duplicate, bad schema).
    void add_route(const std::string& method, const std::string& pattern, PyObject* route_desc);
    /// A route answered by the I/O threads with fixed bytes; never takes the GIL.
    void add_static_route(const std::string& method, const std::string& pattern, int status,
                          const std::string& content_type, std::vector<std::pair<std::string, std::string>> headers,
                          std::string body);
    /// A route whose JSON body is validated in C++ against `body_schema` and echoed compactly (json.dumps layout);
    /// never takes the GIL. Invalid bodies get FastAPI's 422.
    void add_echo_route(const std::string& method, const std::string& pattern, const std::string& body_schema,
                        int status);
    /// Throws std::system_error when the address cannot be bound.
    void listen(const std::string& host, int port);
    /// Starts the executor and the I/O threads; returns at once.
    void start();
    /// Serves until SIGINT/SIGTERM or stop(), drains, stops the executor. Releases the GIL. Returns the exit code.
    int run();
    /// Asks the server to drain and stop. Any thread.
    void stop();
    /// Waits for the server, then stops and joins the executor. Releases the GIL. Throws std::runtime_error when
    /// called on the executor thread (a handler, or the garbage collector running there): it cannot wait for itself.
    void wait();
    /// Whether the caller is this app's executor thread.
    bool on_executor_thread() const noexcept { return executor_->on_own_thread(); }
    int port() const;
    /// The C++ app (for registrations made by other binding files, before start).
    App& app() { return *app_; }
    bool started() const { return started_; }

  private:
    void stop_executor();
    /// The destructor on the executor thread: a helper thread drains, joins and frees what this app owns.
    void release_from_executor_thread() noexcept;

    std::unique_ptr<AppContext> context_;
    PyRef runner_;
    std::vector<std::unique_ptr<PyRoute>> routes_;
    std::unique_ptr<Executor> executor_;  // a pointer: it may outlive this object (see the destructor)
    std::unique_ptr<App> app_;
    bool started_ = false;
    bool finished_ = false;
};

}  // namespace slipstream::python
