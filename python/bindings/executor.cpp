// Executor: request queue + eventfd between the I/O threads and the Python thread.
#include "executor.h"

#include <nanobind/nanobind.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
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

// The executor a thread serves (its executor thread or one of its helpers) and its token in the baton.
thread_local Executor* tls_executor = nullptr;
thread_local int tls_token = -1;
thread_local bool tls_handed_off = false;  // since the drain() this thread runs began
thread_local int tls_draining = 0;         // drain() calls running on this thread (reply() keeps responses)
// This thread's sync call: bit 0 while one runs, bit 1 once the watchdog handed it off; the rest counts calls.
thread_local std::atomic<std::uint64_t> tls_sync_state{0};
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
    if (watchdog_.joinable()) {  // normally joined at the end of the executor thread (retire_helpers)
        {
            std::lock_guard<std::mutex> lock(baton_mutex_);
            watchdog_stop_ = true;
            watchdog_cv_.notify_all();
        }
        watchdog_.join();
    }
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
    {
        std::lock_guard<std::mutex> lock(baton_mutex_);
        owner_ = 0;
        next_token_ = 1;
        returned_.clear();
        returned_count_.store(0);
        parked_.clear();
        retiring_ = false;
        watchdog_stop_ = false;
        watchdog_idle_.store(false);
    }
    nb::object drain_fn = nb::cpp_function([this]() { return drain(); });
    nb::object turn_fn = nb::cpp_function([this]() { return turn(); });
    nb::object helper_fn = nb::cpp_function([this](nb::handle body) { set_helper(body.ptr()); });
    nb::object flush_fn = nb::cpp_function([this](nb::handle call_soon) { set_call_soon(call_soon.ptr()); });
    Py_CLEAR(send_fn_);
    send_fn_ = nb::cpp_function([this]() { send_replies(); }).release().ptr();
    PyObject* run = runner;
    Py_INCREF(run);
    PyObject* fns[4] = {drain_fn.release().ptr(), turn_fn.release().ptr(), helper_fn.release().ptr(),
                        flush_fn.release().ptr()};
    {
        std::lock_guard<std::mutex> lock(g_census_mutex);
        ++g_python_threads;
        g_running.insert(this);
    }
    thread_ = std::thread([this, run, fns] {
        tls_executor = this;
        tls_token = 0;
        {
            std::lock_guard<std::mutex> lock(baton_mutex_);
            slots_.assign(1, &tls_sync_state);
        }
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject* fd = PyLong_FromLong(event_fd_);
        PyObject* argv[] = {fd, fns[0], fns[1], fns[2], fns[3]};
        PyObject* result = fd != nullptr ? PyObject_Vectorcall(run, argv, 5, nullptr) : nullptr;
        if (result == nullptr) PyErr_WriteUnraisable(run);
        Py_XDECREF(result);
        Py_XDECREF(fd);
        Py_DECREF(run);
        for (PyObject* f : fns)
            Py_DECREF(f);
        // Requests that arrived after the loop stopped: their Responders answer 500 when dropped.
        {
            std::lock_guard<std::mutex> lock(mutex_);
            batch_.swap(queue_);
            queue_.clear();
        }
        batch_.clear();
        next_job_ = 0;
        PyThreadState* state = PyEval_SaveThread();
        retire_helpers();
        PyEval_RestoreThread(state);
        Py_CLEAR(helper_body_);
        send_replies();  // answers kept for a loop turn that never came (the loop stopped first)
        Py_CLEAR(call_soon_);
        Py_CLEAR(send_fn_);
        PyGILState_Release(gil);
        {
            std::lock_guard<std::mutex> lock(g_census_mutex);
            g_running.erase(this);
        }
        census::leave();
    });
}

void Executor::set_helper(PyObject* body) {
    if (helper_body_ != nullptr || watchdog_.joinable()) return;  // once per run
    Py_INCREF(body);
    helper_body_ = body;
    watchdog_ = std::thread([this] { watch(); });
}

bool Executor::on_own_thread() const noexcept {
    return tls_executor == this;
}

void Executor::wake_loop() noexcept {
    std::uint64_t one = 1;
    (void)!::write(event_fd_, &one, sizeof one);
}

// --- The baton (see executor.h). ---

void Executor::begin_sync_call() noexcept {
    if (helper_body_ == nullptr || tls_executor != this) return;
    std::uint64_t state = tls_sync_state.load(std::memory_order_relaxed);
    tls_sync_state.store((((state >> 2) + 1) << 2) | 1, std::memory_order_release);
    if (watchdog_idle_.load(std::memory_order_relaxed)) {
        std::lock_guard<std::mutex> lock(baton_mutex_);
        watchdog_idle_.store(false);
        watchdog_cv_.notify_one();
    }
}

Executor* Executor::current() noexcept {
    return tls_executor;
}

bool Executor::take_handed_off() noexcept {
    const bool was = tls_handed_off;
    tls_handed_off = false;
    return was;
}

void Executor::end_sync_call() noexcept {
    if (helper_body_ == nullptr || tls_executor != this) return;
    std::uint64_t state = tls_sync_state.load(std::memory_order_relaxed);
    std::uint64_t before = tls_sync_state.exchange(state & ~std::uint64_t{3}, std::memory_order_acq_rel);
    if ((before & 2) == 0) return;
    // Another thread took the baton while this call blocked: wait until this thread has it again.
    tls_handed_off = true;
    PyThreadState* saved = PyEval_SaveThread();
    {
        std::unique_lock<std::mutex> lock(baton_mutex_);
        const int me = tls_token;
        if (owner_ == -1) {
            owner_ = me;
        } else {
            returned_.push_back(me);
            returned_count_.fetch_add(1, std::memory_order_release);
            wake_loop();  // the owner may be waiting in the selector
        }
        baton_cv_.wait(lock, [&] { return owner_ == me || retiring_; });
        if (owner_ != me) {  // the executor stopped meanwhile: nobody drives the loop any more
            std::erase(returned_, me);
            owner_ = me;
        }
    }
    PyEval_RestoreThread(saved);
}

int Executor::turn() noexcept {
    const int me = tls_token;
    if (returned_count_.load(std::memory_order_acquire) == 0 && (me == 0 || !stop_.load())) return 1;
    int answer = 1;
    PyThreadState* saved = PyEval_SaveThread();
    {
        std::unique_lock<std::mutex> lock(baton_mutex_);
        if (!returned_.empty()) {
            owner_ = returned_.front();  // a thread whose blocked call returned goes on first
            returned_.pop_front();
            returned_count_.fetch_sub(1, std::memory_order_release);
        } else if (me != 0 && stop_.load()) {
            // Stopping: the executor thread ends the loop (run_forever is on its stack); -1 while it is blocked.
            auto it = std::find(parked_.begin(), parked_.end(), 0);
            owner_ = it != parked_.end() ? 0 : -1;
        } else {
            owner_ = me;
        }
        if (owner_ != me) {
            parked_.push_back(me);
            baton_cv_.notify_all();
            baton_cv_.wait(lock, [&] { return owner_ == me || (retiring_ && me != 0); });
            std::erase(parked_, me);
            answer = owner_ == me ? 2 : 0;
        }
    }
    PyEval_RestoreThread(saved);
    return answer;
}

void Executor::hand_off_locked() noexcept {
    send_replies();  // the blocked thread's batch answered so far goes out now, not when its handler returns
    if (!parked_.empty()) {
        owner_ = parked_.back();
        baton_cv_.notify_all();
        return;
    }
    if (retiring_ || helpers_.size() >= static_cast<std::size_t>(kMaxHelpers)) {
        owner_ = -1;  // no thread to spare: the blocked call's thread takes the baton back when it returns
        return;
    }
    const int token = next_token_++;
    owner_ = token;
    census::enter();
    try {
        helpers_.emplace_back([this, token] { run_helper(token); });
    } catch (const std::system_error&) {
        census::leave();
        owner_ = -1;
    }
}

void Executor::run_helper(int token) noexcept {
    tls_executor = this;
    tls_token = token;
    {
        std::lock_guard<std::mutex> lock(baton_mutex_);
        if (slots_.size() <= static_cast<std::size_t>(token)) slots_.resize(static_cast<std::size_t>(token) + 1);
        slots_[static_cast<std::size_t>(token)] = &tls_sync_state;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject* result = PyObject_CallNoArgs(helper_body_);
    if (result == nullptr) PyErr_WriteUnraisable(helper_body_);
    Py_XDECREF(result);
    PyThreadState* saved = PyEval_SaveThread();
    {
        // Leaving (retired, or its body failed): a thread that waits gets the baton if this one had it.
        std::lock_guard<std::mutex> lock(baton_mutex_);
        slots_[static_cast<std::size_t>(token)] = nullptr;
        if (owner_ == token) {
            if (!returned_.empty()) {
                owner_ = returned_.front();
                returned_.pop_front();
                returned_count_.fetch_sub(1, std::memory_order_release);
            } else {
                owner_ = parked_.empty() ? -1 : parked_.back();
            }
            baton_cv_.notify_all();
        }
    }
    PyEval_RestoreThread(saved);
    PyGILState_Release(gil);
    census::leave();
}

void Executor::watch() noexcept {
    std::uint64_t last = ~std::uint64_t{0};
    std::atomic<std::uint64_t>* last_slot = nullptr;
    std::unique_lock<std::mutex> lock(baton_mutex_);
    while (!watchdog_stop_) {
        if (watchdog_idle_.load()) {  // no sync call for a whole period: sleep until the next one begins
            watchdog_cv_.wait(lock, [&] { return watchdog_stop_ || !watchdog_idle_.load(); });
            last_slot = nullptr;
            continue;
        }
        watchdog_cv_.wait_for(lock, kBlockedAfter, [&] { return watchdog_stop_; });
        if (watchdog_stop_) break;
        // The baton's owner's call (a thread handed off earlier waits in its own call, not watched).
        std::atomic<std::uint64_t>* slot = owner_ >= 0 && static_cast<std::size_t>(owner_) < slots_.size()
                                               ? slots_[static_cast<std::size_t>(owner_)]
                                               : nullptr;
        std::uint64_t state = slot != nullptr ? slot->load(std::memory_order_acquire) : 0;
        if (slot != nullptr && slot == last_slot && state == last) {
            // The same call has run for at least kBlockedAfter: hand the loop to another thread.
            if ((state & 3) != 1)
                watchdog_idle_.store(true);
            else if (slot->compare_exchange_strong(state, state | 2, std::memory_order_acq_rel))
                hand_off_locked();
        }
        last = state;
        last_slot = slot;
    }
}

void Executor::retire_helpers() noexcept {
    {
        std::lock_guard<std::mutex> lock(baton_mutex_);
        retiring_ = true;
        watchdog_stop_ = true;
        owner_ = -1;
        watchdog_cv_.notify_all();
        baton_cv_.notify_all();
    }
    if (watchdog_.joinable()) watchdog_.join();
    for (std::thread& t : helpers_)
        if (t.joinable()) t.join();
    helpers_.clear();
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

void Executor::reply(Responder& responder, Response response) {
    Executor* self = tls_executor;
    // Outside drain() (a coroutine that suspended answers from a loop callback), kept until the loop's next turn.
    const bool in_batch = tls_draining > 0;
    if (self == nullptr || (!in_batch && (self->call_soon_ == nullptr || PyErr_Occurred()))) {
        responder.send(std::move(response));
        return;
    }
    bool schedule = false;
    {
        std::lock_guard<std::mutex> lock(self->replies_mutex_);
        self->replies_.emplace_back(std::move(responder), std::move(response));
        schedule = !in_batch && !self->send_scheduled_;
        if (schedule) self->send_scheduled_ = true;
    }
    if (!schedule) return;
    PyObject* done = PyObject_CallOneArg(self->call_soon_, self->send_fn_);
    if (done == nullptr) {  // the loop is closed: at once
        PyErr_Clear();
        self->send_replies();
    }
    Py_XDECREF(done);
}

void Executor::set_call_soon(PyObject* call_soon) {
    Py_XINCREF(call_soon);
    Py_XSETREF(call_soon_, call_soon);
}

void Executor::send_replies() noexcept {
    std::vector<std::pair<Responder, Response>> replies;
    {
        std::lock_guard<std::mutex> lock(replies_mutex_);
        replies.swap(replies_);
        send_scheduled_ = false;
    }
    if (!replies.empty()) Responder::send_all(replies);
}

int Executor::drain() noexcept {
    tls_handed_off = false;
    std::uint64_t count = 0;
    (void)!::read(event_fd_, &count, sizeof count);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        notified_ = false;
        if (next_job_ >= batch_.size()) {
            batch_.clear();
            next_job_ = 0;
            batch_.swap(queue_);
        } else {  // the rest of a batch whose thread blocked in a handler comes first
            for (Job& job : queue_)
                batch_.push_back(std::move(job));
            queue_.clear();
        }
    }
    // One GIL hold for the whole batch (the loop called us with it held). A job is moved out first: another
    // thread may take over batch_ while this one is blocked in its handler.
    ++tls_draining;
    while (next_job_ < batch_.size()) {
        Job job = std::move(batch_[next_job_++]);
        job.route->handle(job.request, std::move(job.responder));
    }
    --tls_draining;
    send_replies();  // the batch's answers, one wake-up of each I/O thread
    batch_.clear();
    next_job_ = 0;
    const int handed_off = tls_handed_off ? kHandedOff : 0;
    if (!stop_.load()) return handed_off;
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.empty() ? handed_off | kStop : handed_off;
}

}  // namespace slipstream::python
