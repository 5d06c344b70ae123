// NativeDatabase: calls into store::Database; answers queued without the GIL and converted by drain().
#include "py_database.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "copy_records.h"
#include "db_core.h"
#include "db_values.h"
#include "native_app.h"
#include "py_ref.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

// The answer of a blocking call: set once by the database's thread, waited for by the caller (without the GIL).
template <typename R>
class Waiter {
  public:
    void set(R value) {
        std::lock_guard<std::mutex> lock(mutex_);
        value_.emplace(std::move(value));
        cv_.notify_one();
    }
    R wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return value_.has_value(); });
        return std::move(*value_);
    }

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<R> value_;
};

PyObject* result_tuple(bool ok, PyObject* payload) {
    if (payload == nullptr) return nullptr;
    return Py_BuildValue("(ON)", ok ? Py_True : Py_False, payload);
}

PyObject* to_python(const store::QueryResult& r) {
    return r.is_ok() ? result_tuple(true, query_payload(r.value()))
                     : result_tuple(false, error_payload(r.status(), r.error()));
}

PyObject* to_python(const store::JsonResult& r) {
    if (!r.is_ok()) return result_tuple(false, error_payload(r.status(), r.error()));
    const std::string& json = r.value();
    return result_tuple(true, PyBytes_FromStringAndSize(json.data(), static_cast<Py_ssize_t>(json.size())));
}

PyObject* to_python(const store::CopyCount& r) {
    if (!r.is_ok()) return result_tuple(false, error_payload(r.status(), r.error()));
    return result_tuple(true, PyLong_FromUnsignedLongLong(r.value()));
}

PyObject* to_python(const SessionOpened& s) {
    if (!s.status.is_ok()) return result_tuple(false, error_payload(s.status, {}));
    return result_tuple(true, PyLong_FromUnsignedLongLong(s.sid));
}

PyObject* to_python(const CopyWake&) {
    Py_INCREF(Py_None);
    return result_tuple(true, Py_None);
}

PyObject* to_python(const CopyOutData& c) {
    if (!c.count.is_ok()) return result_tuple(false, error_payload(c.count.status(), c.count.error()));
    PyObject* data = PyBytes_FromStringAndSize(c.data.data(), static_cast<Py_ssize_t>(c.data.size()));
    if (data == nullptr) return nullptr;
    return result_tuple(true, Py_BuildValue("(KN)", static_cast<unsigned long long>(c.count.value()), data));
}

PyObject* to_python(const ListenerChange& e) {
    const char* kind = e.event == store::ListenerEvent::kConnectionLost ? "connection_lost" : "reconnected";
    return result_tuple(
        true, Py_BuildValue("(sN)", kind,
                            PyUnicode_DecodeUTF8(e.why.data(), static_cast<Py_ssize_t>(e.why.size()), "replace")));
}

PyObject* to_python(const store::DbNotification& n) {
    auto text = [](const std::string& s) {
        return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    };
    return result_tuple(true, Py_BuildValue("(NNi)", text(n.channel), text(n.payload), n.sender_pid));
}

// A conversion that failed (out of memory, say) still answers its caller: as an "internal" error.
PyObject* conversion_failure() {
    PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
    PyErr_Fetch(&type, &value, &trace);
    PyRef text = PyRef::steal(value != nullptr ? PyObject_Str(value) : nullptr);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    PyErr_Clear();
    const char* why = text ? PyUnicode_AsUTF8(text.get()) : nullptr;
    if (why == nullptr) PyErr_Clear();
    store::DbError error;
    error.message = std::string("converting the answer failed: ") + (why != nullptr ? why : "unknown error");
    return result_tuple(false, error_payload(base::Status::internal(error.message), error));
}

std::int64_t seconds_to_ns(double seconds, const char* name, bool zero_allowed) {
    if (!std::isfinite(seconds) || seconds < 0 || (!zero_allowed && seconds == 0) || seconds > 1e9)
        throw std::invalid_argument(std::string(name) + " must be a positive number of seconds");
    return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

}  // namespace

NativeDatabase::NativeDatabase(store::DatabaseConfig config) : core_(std::make_shared<DbCore>()) {
    base::Result<store::DatabaseTarget> target = store::parse_database_url(config.url);
    if (!target.is_ok()) throw std::invalid_argument(target.status().message());
    // The limits Database::open checks, reported now rather than at the first query.
    if (config.max_size == 0) throw std::invalid_argument("max_size must be at least 1");
    if (config.min_size > config.max_size) throw std::invalid_argument("min_size must not exceed max_size");
    if (config.max_sessions == 0) throw std::invalid_argument("max_sessions must be at least 1");
    core_->backend = target.value().backend;
    core_->config = std::move(config);
}

NativeDatabase::~NativeDatabase() {
    close();
}

PyObject* NativeDatabase::open() {
    if (is_open()) Py_RETURN_NONE;
    core_->own_eventfd();
    std::optional<base::Result<std::unique_ptr<store::Database>>> opened;
    {
        nb::gil_scoped_release release;  // SQLite opens its files here
        opened.emplace(store::Database::open(core_->config));
    }
    if (!opened->is_ok()) return error_payload(opened->status(), {});
    std::shared_ptr<store::Database> mine(std::move(*opened).value());
    {
        std::lock_guard<std::mutex> lock(core_->db_mutex);
        if (core_->db == nullptr) {
            core_->db = std::move(mine);
            Py_RETURN_NONE;
        }
    }
    {
        nb::gil_scoped_release release;  // another thread opened it meanwhile: this one goes
        mine.reset();
    }
    Py_RETURN_NONE;
}

void NativeDatabase::close() {
    std::shared_ptr<store::Database> db;
    std::unordered_map<std::uint64_t, std::shared_ptr<store::DbSession>> sessions;
    std::unordered_map<std::uint64_t, std::shared_ptr<store::DbListener>> listeners;
    {
        std::lock_guard<std::mutex> lock(core_->db_mutex);
        db = std::move(core_->db);
        core_->db = nullptr;
        sessions.swap(core_->sessions);
        listeners.swap(core_->listeners);
    }
    if (db == nullptr && sessions.empty() && listeners.empty()) return;
    nb::gil_scoped_release release;
    for (auto& [sid, session] : sessions)
        session->close();
    sessions.clear();
    listeners.clear();  // each closes
    db.reset();         // stops the loop thread after answering what is in flight (kCancelled)
    // A session opened while the database was stopping: nothing can use it any more.
    {
        std::lock_guard<std::mutex> lock(core_->db_mutex);
        sessions.swap(core_->sessions);
    }
    sessions.clear();
}

bool NativeDatabase::is_open() const {
    return core_->database() != nullptr;
}

bool NativeDatabase::ready() const {
    return core_->ready();
}

const char* NativeDatabase::backend() const {
    return core_->backend == store::Backend::kPostgres ? "postgresql" : "sqlite";
}

int NativeDatabase::event_fd() const {
    return core_->fd;
}

PyObject* NativeDatabase::drain() {
    return drain_completions(*core_);
}

PyObject* drain_completions(DbCore& core) {
    std::vector<DbCompletion> batch = core.take();
    PyRef out = PyRef::steal(PyList_New(static_cast<Py_ssize_t>(batch.size())));
    if (!out) return nullptr;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        PyObject* answer = std::visit([](const auto& v) { return to_python(v); }, batch[i].value);
        if (answer == nullptr) answer = conversion_failure();
        if (answer == nullptr) return nullptr;
        PyObject* item = Py_BuildValue("(KOO)", static_cast<unsigned long long>(batch[i].token),
                                       PyTuple_GET_ITEM(answer, 0), PyTuple_GET_ITEM(answer, 1));
        Py_DECREF(answer);
        if (item == nullptr) return nullptr;
        PyList_SET_ITEM(out.get(), static_cast<Py_ssize_t>(i), item);
    }
    return out.release();
}

void NativeDatabase::query(std::uint64_t token, std::string sql, PyObject* params, std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) throw nb::python_error();
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return core_->push(DbCompletion{token, store::QueryResult(closed_database())});
    core_->track(token, db->query(std::move(sql), std::move(values), DbCore::to_queue(core_, token), timeout_ns));
}

void NativeDatabase::fetch_json(std::uint64_t token, std::string sql, PyObject* params, std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) throw nb::python_error();
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return core_->push(DbCompletion{token, store::JsonResult(closed_database())});
    core_->track(token,
                 db->fetch_json(std::move(sql), std::move(values), DbCore::json_to_queue(core_, token), timeout_ns));
}

void NativeDatabase::copy_in(std::uint64_t token, std::string copy_sql, std::string data, std::int64_t timeout_ns) {
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return core_->push(DbCompletion{token, store::CopyCount(closed_database())});
    std::shared_ptr<DbCore> core = core_;
    core_->track(token, db->copy_in_data(
                            std::move(copy_sql), std::move(data),
                            [core, token](store::CopyCount r) {
                                core->push(DbCompletion{token, std::move(r)});
                            },
                            timeout_ns));
}

void NativeDatabase::cancel(std::uint64_t token) {
    std::shared_ptr<store::QueryCancel> handle;
    {
        std::lock_guard<std::mutex> lock(core_->cancel_mutex);
        auto it = core_->cancels.find(token);
        if (it == core_->cancels.end()) return;
        handle = std::move(it->second);
        core_->cancels.erase(it);
    }
    handle->cancel();  // posts to the database's thread
}

void NativeDatabase::open_session(std::uint64_t token) {
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return core_->push(DbCompletion{token, SessionOpened{closed_database()}});
    std::shared_ptr<DbCore> core = core_;
    nb::gil_scoped_release release;  // SQLite opens the session's connection on this thread
    db->open_session([core, token](base::Result<std::unique_ptr<store::DbSession>> session) {
        if (!session.is_ok()) return core->push(DbCompletion{token, SessionOpened{session.status()}});
        std::uint64_t sid = core->add_session(std::move(session).value());
        core->push(DbCompletion{token, SessionOpened{base::Status::ok(), sid}});
    });
}

void NativeDatabase::session_query(std::uint64_t sid, std::uint64_t token, std::string sql, PyObject* params,
                                   std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) throw nb::python_error();
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return core_->push(DbCompletion{token, store::QueryResult(closed_session())});
    core_->track(token, session->query(std::move(sql), std::move(values), DbCore::to_queue(core_, token), timeout_ns));
}

void NativeDatabase::session_fetch_json(std::uint64_t sid, std::uint64_t token, std::string sql, PyObject* params,
                                        std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) throw nb::python_error();
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return core_->push(DbCompletion{token, store::JsonResult(closed_session())});
    core_->track(
        token, session->fetch_json(std::move(sql), std::move(values), DbCore::json_to_queue(core_, token), timeout_ns));
}

void NativeDatabase::session_listen(std::uint64_t sid, std::uint64_t token) {
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return;
    std::shared_ptr<DbCore> core = core_;
    session->set_notification_handler([core, token](const store::DbNotification& n) {
        core->push(DbCompletion{token, n});
    });
}

void NativeDatabase::close_session(std::uint64_t sid) {
    std::shared_ptr<store::DbSession> session;
    {
        std::lock_guard<std::mutex> lock(core_->db_mutex);
        auto it = core_->sessions.find(sid);
        if (it == core_->sessions.end()) return;
        session = std::move(it->second);
        core_->sessions.erase(it);
    }
    nb::gil_scoped_release release;  // a SQLite session joins its thread once its statements are done
    session->close();
    session.reset();
}

PyObject* NativeDatabase::query_blocking(std::string sql, PyObject* params, std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) return nullptr;
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return to_python(store::QueryResult(closed_database()));
    auto waiter = std::make_shared<Waiter<store::QueryResult>>();
    std::optional<store::QueryResult> result;
    {
        nb::gil_scoped_release release;
        db->query(
            std::move(sql), std::move(values), [waiter](store::QueryResult r) { waiter->set(std::move(r)); },
            timeout_ns);
        db.reset();
        result.emplace(waiter->wait());
    }
    return to_python(*result);
}

PyObject* NativeDatabase::fetch_json_blocking(std::string sql, PyObject* params, std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) return nullptr;
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return to_python(store::JsonResult(closed_database()));
    auto waiter = std::make_shared<Waiter<store::JsonResult>>();
    std::optional<store::JsonResult> result;
    {
        nb::gil_scoped_release release;
        db->fetch_json(
            std::move(sql), std::move(values), [waiter](store::JsonResult r) { waiter->set(std::move(r)); },
            timeout_ns);
        db.reset();
        result.emplace(waiter->wait());
    }
    return to_python(*result);
}

PyObject* NativeDatabase::copy_in_blocking(std::string copy_sql, std::string data, std::int64_t timeout_ns) {
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return to_python(store::CopyCount(closed_database()));
    auto waiter = std::make_shared<Waiter<store::CopyCount>>();
    std::optional<store::CopyCount> result;
    {
        nb::gil_scoped_release release;
        db->copy_in_data(
            std::move(copy_sql), std::move(data), [waiter](store::CopyCount r) { waiter->set(std::move(r)); },
            timeout_ns);
        db.reset();
        result.emplace(waiter->wait());
    }
    return to_python(*result);
}

PyObject* NativeDatabase::session_copy_in_blocking(std::uint64_t sid, std::string copy_sql, std::string data,
                                                   std::int64_t timeout_ns) {
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return to_python(store::CopyCount(closed_session()));
    auto waiter = std::make_shared<Waiter<store::CopyCount>>();
    std::optional<store::CopyCount> result;
    {
        nb::gil_scoped_release release;
        session->copy_in_data(
            std::move(copy_sql), std::move(data), [waiter](store::CopyCount r) { waiter->set(std::move(r)); },
            timeout_ns);
        session.reset();
        result.emplace(waiter->wait());
    }
    return to_python(*result);
}

PyObject* NativeDatabase::copy_out_blocking(std::uint64_t sid, std::string copy_sql, std::int64_t timeout_ns) {
    std::shared_ptr<store::Database> db = sid == 0 ? core_->database() : nullptr;
    std::shared_ptr<store::DbSession> session = sid == 0 ? nullptr : core_->session(sid);
    if (db == nullptr && session == nullptr)
        return to_python(CopyOutData{sid == 0 ? closed_database() : closed_session(), {}});
    auto waiter = std::make_shared<Waiter<store::CopyCount>>();
    auto data = std::make_shared<std::string>();
    std::optional<store::CopyCount> result;
    {
        nb::gil_scoped_release release;
        auto sink = [data](std::string_view piece) {
            data->append(piece);
            return base::Status::ok();
        };
        auto done = [waiter](store::CopyCount r) { waiter->set(std::move(r)); };
        if (db != nullptr) {
            db->copy_out(std::move(copy_sql), sink, done, timeout_ns);
        } else {
            session->copy_out(std::move(copy_sql), sink, done, timeout_ns);
        }
        db.reset();
        session.reset();
        result.emplace(waiter->wait());
    }
    return to_python(CopyOutData{std::move(*result), std::move(*data)});
}

PyObject* NativeDatabase::copy_out_to_blocking(std::uint64_t sid, std::string copy_sql, std::int64_t timeout_ns,
                                               std::size_t limit_bytes, PyObject* write) {
    std::shared_ptr<store::Database> db = sid == 0 ? core_->database() : nullptr;
    std::shared_ptr<store::DbSession> session = sid == 0 ? nullptr : core_->session(sid);
    if (db == nullptr && session == nullptr)
        return to_python(store::CopyCount(sid == 0 ? closed_database() : closed_session()));
    auto stream = std::make_shared<store::CopyOutStream>(limit_bytes);
    auto waiter = std::make_shared<Waiter<store::CopyCount>>();
    auto done = [waiter](store::CopyCount r) { waiter->set(std::move(r)); };
    std::shared_ptr<store::QueryCancel> cancel =
        db != nullptr ? db->copy_out_stream(std::move(copy_sql), stream, done, timeout_ns)
                      : session->copy_out_stream(std::move(copy_sql), stream, done, timeout_ns);
    constexpr std::size_t kChunk = 256 * 1024;
    for (;;) {
        std::string chunk;
        if (!stream->take(chunk, kChunk)) {
            if (stream->finished()) break;
            auto ready = std::make_shared<Waiter<bool>>();
            nb::gil_scoped_release release;  // wait for data (or the end) without the GIL
            stream->when_ready([ready] { ready->set(true); });
            ready->wait();
            continue;
        }
        PyRef bytes = PyRef::steal(PyBytes_FromStringAndSize(chunk.data(), static_cast<Py_ssize_t>(chunk.size())));
        PyRef written = bytes ? PyRef::steal(PyObject_CallOneArg(write, bytes.get())) : PyRef();
        if (!written) {  // `write` raised: stop the COPY on the server, wait for its end, raise that error
            PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
            PyErr_Fetch(&type, &value, &trace);
            stream->close();
            cancel->cancel();
            {
                nb::gil_scoped_release release;
                (void)waiter->wait();  // cancelled (or ended first): the consumer's error is the one raised
            }
            PyErr_Restore(type, value, trace);
            return nullptr;
        }
    }
    std::optional<store::CopyCount> result;
    {
        nb::gil_scoped_release release;
        result.emplace(waiter->wait());
    }
    return to_python(*result);
}

PyObject* NativeDatabase::open_session_blocking() {
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return to_python(SessionOpened{closed_database()});
    auto waiter = std::make_shared<Waiter<SessionOpened>>();
    std::shared_ptr<DbCore> core = core_;
    SessionOpened opened;
    {
        nb::gil_scoped_release release;
        db->open_session([core, waiter](base::Result<std::unique_ptr<store::DbSession>> session) {
            if (!session.is_ok()) return waiter->set(SessionOpened{session.status()});
            waiter->set(SessionOpened{base::Status::ok(), core->add_session(std::move(session).value())});
        });
        db.reset();
        opened = waiter->wait();
    }
    return to_python(opened);
}

PyObject* NativeDatabase::session_query_blocking(std::uint64_t sid, std::string sql, PyObject* params,
                                                 std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) return nullptr;
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return to_python(store::QueryResult(closed_session()));
    auto waiter = std::make_shared<Waiter<store::QueryResult>>();
    std::optional<store::QueryResult> result;
    {
        nb::gil_scoped_release release;
        session->query(
            std::move(sql), std::move(values), [waiter](store::QueryResult r) { waiter->set(std::move(r)); },
            timeout_ns);
        session.reset();
        result.emplace(waiter->wait());
    }
    return to_python(*result);
}

PyObject* NativeDatabase::session_fetch_json_blocking(std::uint64_t sid, std::string sql, PyObject* params,
                                                      std::int64_t timeout_ns) {
    store::Params values;
    if (!params_from_python(params, values)) return nullptr;
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return to_python(store::JsonResult(closed_session()));
    auto waiter = std::make_shared<Waiter<store::JsonResult>>();
    std::optional<store::JsonResult> result;
    {
        nb::gil_scoped_release release;
        session->fetch_json(
            std::move(sql), std::move(values), [waiter](store::JsonResult r) { waiter->set(std::move(r)); },
            timeout_ns);
        session.reset();
        result.emplace(waiter->wait());
    }
    return to_python(*result);
}

void add_database_readiness_check(NativeApp& app, const std::string& name, NativeDatabase& db) {
    if (app.started()) throw std::invalid_argument("readiness checks must be added before the app starts");
    std::shared_ptr<DbCore> core = db.core();
    app.app().readiness_check(name, [core] { return core->ready(); });
}

namespace {

nb::object owned(PyObject* o) {
    if (o == nullptr) throw nb::python_error();
    return nb::steal(o);
}

}  // namespace

// The COPY and listener methods (py_database_streams.cpp).
void register_database_streams(nb::class_<NativeDatabase>& cls);

void register_database(nb::module_& m) {
    nb::class_<NativeDatabase> cls(m, "NativeDatabase");
    register_database_streams(cls);
    cls.def(
           "__init__",
           [](NativeDatabase* self, const std::string& url, std::size_t min_size, std::size_t max_size,
              double acquire_timeout, double connect_timeout, double statement_timeout, std::size_t max_sessions,
              std::size_t statement_cache_size) {
               store::DatabaseConfig config;
               config.url = url;
               config.min_size = min_size;
               config.max_size = max_size;
               config.acquire_timeout_ns = seconds_to_ns(acquire_timeout, "acquire_timeout", false);
               config.connect_timeout_ns = seconds_to_ns(connect_timeout, "connect_timeout", false);
               config.statement_timeout_ns = seconds_to_ns(statement_timeout, "statement_timeout", true);
               config.max_sessions = max_sessions;
               config.statement_cache_size = statement_cache_size;
               new (self) NativeDatabase(std::move(config));
           },
           nb::arg("url"), nb::arg("min_size"), nb::arg("max_size"), nb::arg("acquire_timeout"),
           nb::arg("connect_timeout"), nb::arg("statement_timeout"), nb::arg("max_sessions"),
           nb::arg("statement_cache_size"))
        .def("open", [](NativeDatabase& self) { return owned(self.open()); })
        .def("close", &NativeDatabase::close)
        .def("ready", &NativeDatabase::ready)
        .def_prop_ro("is_open", &NativeDatabase::is_open)
        .def_prop_ro("backend", &NativeDatabase::backend)
        .def("event_fd", &NativeDatabase::event_fd)
        .def("drain", [](NativeDatabase& self) { return owned(self.drain()); })
        .def(
            "query",
            [](NativeDatabase& self, std::uint64_t token, std::string sql, nb::handle params, std::int64_t timeout) {
                self.query(token, std::move(sql), params.ptr(), timeout);
            },
            nb::arg("token"), nb::arg("sql"), nb::arg("params"), nb::arg("timeout"))
        .def(
            "fetch_json",
            [](NativeDatabase& self, std::uint64_t token, std::string sql, nb::handle params, std::int64_t timeout) {
                self.fetch_json(token, std::move(sql), params.ptr(), timeout);
            },
            nb::arg("token"), nb::arg("sql"), nb::arg("params"), nb::arg("timeout"))
        .def(
            "copy_in",
            [](NativeDatabase& self, std::uint64_t token, std::string sql, nb::bytes data, std::int64_t timeout) {
                self.copy_in(token, std::move(sql), std::string(data.c_str(), data.size()), timeout);
            },
            nb::arg("token"), nb::arg("sql"), nb::arg("data"), nb::arg("timeout"))
        .def("cancel", &NativeDatabase::cancel, nb::arg("token"))
        .def(
            "copy_in_blocking",
            [](NativeDatabase& self, std::string sql, nb::bytes data, std::int64_t timeout) {
                return owned(self.copy_in_blocking(std::move(sql), std::string(data.c_str(), data.size()), timeout));
            },
            nb::arg("sql"), nb::arg("data"), nb::arg("timeout"))
        .def(
            "session_copy_in_blocking",
            [](NativeDatabase& self, std::uint64_t sid, std::string sql, nb::bytes data, std::int64_t timeout) {
                return owned(self.session_copy_in_blocking(sid, std::move(sql), std::string(data.c_str(), data.size()),
                                                           timeout));
            },
            nb::arg("sid"), nb::arg("sql"), nb::arg("data"), nb::arg("timeout"))
        .def(
            "copy_out_blocking",
            [](NativeDatabase& self, std::uint64_t sid, std::string sql, std::int64_t timeout) {
                return owned(self.copy_out_blocking(sid, std::move(sql), timeout));
            },
            nb::arg("sid"), nb::arg("sql"), nb::arg("timeout"))
        .def(
            "copy_out_to_blocking",
            [](NativeDatabase& self, std::uint64_t sid, std::string sql, std::int64_t timeout, std::size_t limit_bytes,
               nb::handle write) {
                PyObject* answer = self.copy_out_to_blocking(sid, std::move(sql), timeout, limit_bytes, write.ptr());
                if (answer == nullptr) throw nb::python_error();
                return nb::steal(answer);
            },
            nb::arg("sid"), nb::arg("sql"), nb::arg("timeout"), nb::arg("limit_bytes"), nb::arg("write"))
        .def("open_session", &NativeDatabase::open_session, nb::arg("token"))
        .def(
            "session_query",
            [](NativeDatabase& self, std::uint64_t sid, std::uint64_t token, std::string sql, nb::handle params,
               std::int64_t timeout) { self.session_query(sid, token, std::move(sql), params.ptr(), timeout); },
            nb::arg("sid"), nb::arg("token"), nb::arg("sql"), nb::arg("params"), nb::arg("timeout"))
        .def(
            "session_fetch_json",
            [](NativeDatabase& self, std::uint64_t sid, std::uint64_t token, std::string sql, nb::handle params,
               std::int64_t timeout) { self.session_fetch_json(sid, token, std::move(sql), params.ptr(), timeout); },
            nb::arg("sid"), nb::arg("token"), nb::arg("sql"), nb::arg("params"), nb::arg("timeout"))
        .def("session_listen", &NativeDatabase::session_listen, nb::arg("sid"), nb::arg("token"))
        .def("close_session", &NativeDatabase::close_session, nb::arg("sid"))
        .def(
            "query_blocking",
            [](NativeDatabase& self, std::string sql, nb::handle params, std::int64_t timeout) {
                return owned(self.query_blocking(std::move(sql), params.ptr(), timeout));
            },
            nb::arg("sql"), nb::arg("params"), nb::arg("timeout"))
        .def(
            "fetch_json_blocking",
            [](NativeDatabase& self, std::string sql, nb::handle params, std::int64_t timeout) {
                return owned(self.fetch_json_blocking(std::move(sql), params.ptr(), timeout));
            },
            nb::arg("sql"), nb::arg("params"), nb::arg("timeout"))
        .def("open_session_blocking", [](NativeDatabase& self) { return owned(self.open_session_blocking()); })
        .def(
            "session_query_blocking",
            [](NativeDatabase& self, std::uint64_t sid, std::string sql, nb::handle params, std::int64_t timeout) {
                return owned(self.session_query_blocking(sid, std::move(sql), params.ptr(), timeout));
            },
            nb::arg("sid"), nb::arg("sql"), nb::arg("params"), nb::arg("timeout"))
        .def(
            "session_fetch_json_blocking",
            [](NativeDatabase& self, std::uint64_t sid, std::string sql, nb::handle params, std::int64_t timeout) {
                return owned(self.session_fetch_json_blocking(sid, std::move(sql), params.ptr(), timeout));
            },
            nb::arg("sid"), nb::arg("sql"), nb::arg("params"), nb::arg("timeout"));

    m.def("add_database_readiness_check", &add_database_readiness_check, nb::arg("app"), nb::arg("name"),
          nb::arg("database"));
    m.def(
        "encode_copy_records",
        [](nb::handle records, Py_ssize_t width, nb::handle columns, nb::handle by_name_types) {
            std::string data;
            if (!encode_copy_records(records.ptr(), width, columns.ptr(), by_name_types.ptr(), data))
                throw nb::python_error();
            return nb::bytes(data.data(), data.size());
        },
        nb::arg("records"), nb::arg("width"), nb::arg("columns").none(), nb::arg("by_name_types"));
    m.def("has_binary_copy_form", &has_binary_form, nb::arg("oid"));
    m.def(
        "encode_copy_records_binary",
        [](nb::handle records, Py_ssize_t width, nb::handle columns, nb::handle by_name_types,
           const std::vector<std::uint32_t>& oids) -> nb::object {
            std::string data;
            int done = encode_copy_records_binary(records.ptr(), width, columns.ptr(), by_name_types.ptr(), oids, data);
            if (done < 0) throw nb::python_error();
            if (done == 0) return nb::none();
            return nb::bytes(data.data(), data.size());
        },
        nb::arg("records"), nb::arg("width"), nb::arg("columns").none(), nb::arg("by_name_types"), nb::arg("oids"));
}

}  // namespace slipstream::python
