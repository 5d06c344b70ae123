// Executor: request queue + eventfd between the I/O threads and the Python thread.
#include "executor.h"

#include <nanobind/nanobind.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <system_error>

#include "py_route.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {
// Threads of ours that run Python, and the executors among them (see stop_python_threads).
std::mutex g_census_mutex;
std::condition_variable g_census_empty;
std::size_t g_python_threads = 0;
std::set<Executor*> g_running;
}  // namespace

namespace census {
void enter() {
    std::lock_guard<std::mutex> lock(g_census_mutex);
    ++g_python_threads;
}
void leave() {
    std::lock_guard<std::mutex> lock(g_census_mutex);
    if (--g_python_threads == 0) g_census_empty.notify_all();
}
}  // namespace census

bool stop_python_threads(double timeout_s) {
    nb::gil_scoped_release release;  // they need the GIL to finish
    std::unique_lock<std::mutex> lock(g_census_mutex);
    for (Executor* e : g_running)
        e->request_stop();
    return g_census_empty.wait_for(lock, std::chrono::duration<double>(timeout_s),
                                   [] { return g_python_threads == 0; });
}

Executor::Executor() {
    event_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (event_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

Executor::~Executor() {
    if (event_fd_ >= 0) ::close(event_fd_);
}

void Executor::submit(const Request& request, Responder responder, const PyRoute* route) {
    bool wake = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(Job{request, std::move(responder), route});
        wake = !notified_;
        notified_ = true;
    }
    if (wake) {
        std::uint64_t one = 1;
        (void)!::write(event_fd_, &one, sizeof one);
    }
}

void Executor::request_stop() {
    stop_.store(true);
    std::uint64_t one = 1;
    (void)!::write(event_fd_, &one, sizeof one);
}

void Executor::start(PyObject* runner) {
    stop_.store(false);
    nb::object drain_fn = nb::cpp_function([this]() { return drain(); });
    PyObject* run = runner;
    Py_INCREF(run);
    PyObject* drain_obj = drain_fn.release().ptr();
    {
        std::lock_guard<std::mutex> lock(g_census_mutex);
        ++g_python_threads;
        g_running.insert(this);
    }
    thread_ = std::thread([this, run, drain_obj] {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject* fd = PyLong_FromLong(event_fd_);
        PyObject* argv[] = {fd, drain_obj};
        PyObject* result = fd != nullptr ? PyObject_Vectorcall(run, argv, 2, nullptr) : nullptr;
        if (result == nullptr) PyErr_WriteUnraisable(run);
        Py_XDECREF(result);
        Py_XDECREF(fd);
        Py_DECREF(run);
        Py_DECREF(drain_obj);
        // Requests that arrived after the loop stopped: their Responders answer 500 when dropped.
        {
            std::lock_guard<std::mutex> lock(mutex_);
            batch_.swap(queue_);
        }
        batch_.clear();
        PyGILState_Release(gil);
        {
            std::lock_guard<std::mutex> lock(g_census_mutex);
            g_running.erase(this);
        }
        census::leave();
    });
}

bool Executor::join() noexcept {
    if (!thread_.joinable()) return true;
    if (on_own_thread()) return false;
    try {
        thread_.join();
    } catch (const std::system_error&) {
        return false;
    }
    return true;
}

bool Executor::drain() noexcept {
    std::uint64_t count = 0;
    (void)!::read(event_fd_, &count, sizeof count);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        notified_ = false;
        batch_.swap(queue_);
    }
    // One GIL hold for the whole batch (the loop called us with it held).
    for (Job& job : batch_)
        job.route->handle(job.request, std::move(job.responder));
    batch_.clear();
    if (!stop_.load()) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.empty();
}

}  // namespace slipstream::python
