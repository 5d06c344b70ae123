// NativeDatabase: COPY on a session, COPY TO STDOUT, and listeners that reconnect (store::DbListener).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <utility>

#include "copy_records.h"
#include "db_core.h"
#include "db_values.h"
#include "py_database.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

// The COPY's data gathered on the database's thread, handed to drain() with the row count.
store::CopyOutSink gather(const std::shared_ptr<std::string>& data) {
    return [data](std::string_view piece) {
        data->append(piece);
        return base::Status::ok();
    };
}

std::function<void(store::CopyCount)> copy_out_to_queue(const std::shared_ptr<DbCore>& core, std::uint64_t token,
                                                        std::shared_ptr<std::string> data) {
    return [core, token, data](store::CopyCount r) {
        core->push(DbCompletion{token, CopyOutData{std::move(r), std::move(*data)}});
    };
}

std::function<void(store::CopyCount)> count_to_queue(const std::shared_ptr<DbCore>& core, std::uint64_t token) {
    return [core, token](store::CopyCount r) { core->push(DbCompletion{token, std::move(r)}); };
}

// LISTEN / UNLISTEN: None, or the error.
std::function<void(base::Status)> status_to_queue(const std::shared_ptr<DbCore>& core, std::uint64_t token) {
    return [core, token](base::Status s) { core->push(DbCompletion{token, SessionOpened{std::move(s)}}); };
}

}  // namespace

void NativeDatabase::session_copy_in(std::uint64_t sid, std::uint64_t token, std::string copy_sql, std::string data,
                                     std::int64_t timeout_ns) {
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return core_->push(DbCompletion{token, store::CopyCount(closed_session())});
    core_->track(token,
                 session->copy_in_data(std::move(copy_sql), std::move(data), count_to_queue(core_, token), timeout_ns));
}

void NativeDatabase::copy_in_stream(std::uint64_t token, std::uint64_t sid, std::string copy_sql,
                                    std::int64_t timeout_ns, PyObject* records, Py_ssize_t width, PyObject* columns,
                                    PyObject* by_name_types, std::vector<std::uint32_t> oids,
                                    std::vector<std::string> names, bool strict, std::size_t limit_bytes) {
    for (std::uint32_t oid : oids) {
        if (!has_binary_form(oid)) throw nb::value_error("copy_in_stream: a column type has no binary form here");
    }
    if (columns != Py_None && !PyTuple_Check(columns)) throw nb::type_error("columns must be a tuple of names");
    PyRef source = PyList_CheckExact(records) || PyTuple_CheckExact(records) ? PyRef::borrow(records)
                                                                             : PyRef::steal(PyObject_GetIter(records));
    if (!source) throw nb::python_error();
    std::shared_ptr<store::Database> db = sid == 0 ? core_->database() : nullptr;
    std::shared_ptr<store::DbSession> session = sid == 0 ? nullptr : core_->session(sid);
    if (db == nullptr && session == nullptr)
        return core_->push(DbCompletion{token, store::CopyCount(sid == 0 ? closed_database() : closed_session())});
    auto stream = std::make_shared<store::CopyStream>(limit_bytes);
    copy_streams_[token] = std::make_unique<CopyIn>(
        CopyIn{stream, std::move(source), PyRef::borrow(columns), PyRef::borrow(by_name_types),
               CopyRecordsEncoder(width, columns, by_name_types, std::move(oids), std::move(names), strict)});
    core_->track(token,
                 db != nullptr
                     ? db->copy_in_stream(std::move(copy_sql), stream, count_to_queue(core_, token), timeout_ns)
                     : session->copy_in_stream(std::move(copy_sql), stream, count_to_queue(core_, token), timeout_ns));
}

int NativeDatabase::copy_stream_records(std::uint64_t token) {
    auto it = copy_streams_.find(token);
    if (it == copy_streams_.end()) return 1;  // ended already: nothing more to send
    CopyIn& copy = *it->second;
    // The first piece is small so that the server starts while the rest is encoded.
    constexpr std::size_t kFirstPiece = 32 * 1024, kPiece = 256 * 1024;
    for (;;) {
        std::string piece;
        const Field f =
            copy.encoder.encode(copy.records.get(), copy.encoder.records() == 0 ? kFirstPiece : kPiece, piece);
        if (f == Field::kError) throw nb::python_error();
        if (f == Field::kMismatch) return -1;
        const bool room = copy.stream->push(std::move(piece));
        if (copy.encoder.ended()) return 1;
        if (!room) return 0;
    }
}

void NativeDatabase::copy_stream_wait(std::uint64_t token, std::uint64_t wait_token) {
    std::shared_ptr<DbCore> core = core_;
    auto it = copy_streams_.find(token);
    if (it == copy_streams_.end()) return core->push(DbCompletion{wait_token, CopyWake{}});
    it->second->stream->when_drained([core, wait_token] { core->push(DbCompletion{wait_token, CopyWake{}}); });
}

void NativeDatabase::copy_stream_end(std::uint64_t token, const std::string* error) {
    auto it = copy_streams_.find(token);
    if (it == copy_streams_.end()) return;
    if (error != nullptr) {
        it->second->stream->fail(*error);
    } else {
        it->second->stream->finish();
    }
    copy_streams_.erase(it);
}

void NativeDatabase::copy_out_stream(std::uint64_t token, std::uint64_t sid, std::string copy_sql,
                                     std::int64_t timeout_ns, std::size_t limit_bytes) {
    auto stream = std::make_shared<store::CopyOutStream>(limit_bytes);
    copy_outs_[token] = stream;
    if (sid == 0) {
        std::shared_ptr<store::Database> db = core_->database();
        if (db == nullptr) return core_->push(DbCompletion{token, store::CopyCount(closed_database())});
        core_->track(token, db->copy_out_stream(std::move(copy_sql), stream, count_to_queue(core_, token), timeout_ns));
        return;
    }
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return core_->push(DbCompletion{token, store::CopyCount(closed_session())});
    core_->track(token,
                 session->copy_out_stream(std::move(copy_sql), stream, count_to_queue(core_, token), timeout_ns));
}

PyObject* NativeDatabase::copy_out_take(std::uint64_t token, std::size_t max_bytes) {
    auto it = copy_outs_.find(token);
    std::string data;
    if (it == copy_outs_.end() || !it->second->take(data, max_bytes)) Py_RETURN_NONE;
    return PyBytes_FromStringAndSize(data.data(), static_cast<Py_ssize_t>(data.size()));
}

void NativeDatabase::copy_out_wait(std::uint64_t token, std::uint64_t wait_token) {
    std::shared_ptr<DbCore> core = core_;
    auto it = copy_outs_.find(token);
    if (it == copy_outs_.end()) return core->push(DbCompletion{wait_token, CopyWake{}});
    it->second->when_ready([core, wait_token] { core->push(DbCompletion{wait_token, CopyWake{}}); });
}

void NativeDatabase::copy_out_close(std::uint64_t token) {
    auto it = copy_outs_.find(token);
    if (it == copy_outs_.end()) return;
    it->second->close();
    copy_outs_.erase(it);
}

void NativeDatabase::copy_out(std::uint64_t token, std::string copy_sql, std::int64_t timeout_ns) {
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return core_->push(DbCompletion{token, CopyOutData{closed_database(), {}}});
    auto data = std::make_shared<std::string>();
    core_->track(token,
                 db->copy_out(std::move(copy_sql), gather(data), copy_out_to_queue(core_, token, data), timeout_ns));
}

void NativeDatabase::session_copy_out(std::uint64_t sid, std::uint64_t token, std::string copy_sql,
                                      std::int64_t timeout_ns) {
    std::shared_ptr<store::DbSession> session = core_->session(sid);
    if (session == nullptr) return core_->push(DbCompletion{token, CopyOutData{closed_session(), {}}});
    auto data = std::make_shared<std::string>();
    core_->track(
        token, session->copy_out(std::move(copy_sql), gather(data), copy_out_to_queue(core_, token, data), timeout_ns));
}

void NativeDatabase::open_listener(std::uint64_t token, std::uint64_t events) {
    std::shared_ptr<store::Database> db = core_->database();
    if (db == nullptr) return core_->push(DbCompletion{token, SessionOpened{closed_database()}});
    std::shared_ptr<DbCore> core = core_;
    store::ListenerHandlers handlers{
        .on_notification =
            [core, events](const store::DbNotification& n) {
                core->push(DbCompletion{events, n});
            },
        .on_event =
            [core, events](store::ListenerEvent e, const base::Status& why) {
                core->push(DbCompletion{events, ListenerChange{e, why.is_ok() ? std::string() : why.message()}});
            },
    };
    db->open_listener(std::move(handlers), [core, token](base::Result<std::unique_ptr<store::DbListener>> listener) {
        if (!listener.is_ok()) return core->push(DbCompletion{token, SessionOpened{listener.status()}});
        std::uint64_t lid = core->add_listener(std::move(listener).value());
        core->push(DbCompletion{token, SessionOpened{base::Status::ok(), lid}});
    });
}

void NativeDatabase::listener_listen(std::uint64_t lid, std::uint64_t token, std::string channel, bool listen) {
    std::shared_ptr<store::DbListener> listener = core_->listener(lid);
    if (listener == nullptr) return core_->push(DbCompletion{token, SessionOpened{closed_session()}});
    if (listen) return listener->listen(std::move(channel), status_to_queue(core_, token));
    listener->unlisten(std::move(channel), status_to_queue(core_, token));
}

bool NativeDatabase::listener_connected(std::uint64_t lid) const {
    std::shared_ptr<store::DbListener> listener = core_->listener(lid);
    return listener != nullptr && listener->connected();
}

void NativeDatabase::close_listener(std::uint64_t lid) {
    std::shared_ptr<store::DbListener> listener;
    {
        std::lock_guard<std::mutex> lock(core_->db_mutex);
        auto it = core_->listeners.find(lid);
        if (it == core_->listeners.end()) return;
        listener = std::move(it->second);
        core_->listeners.erase(it);
    }
    listener->close();
}

void register_database_streams(nb::class_<NativeDatabase>& cls) {
    cls.def(
           "session_copy_in",
           [](NativeDatabase& self, std::uint64_t sid, std::uint64_t token, std::string sql, nb::bytes data,
              std::int64_t timeout) {
               self.session_copy_in(sid, token, std::move(sql), std::string(data.c_str(), data.size()), timeout);
           },
           nb::arg("sid"), nb::arg("token"), nb::arg("sql"), nb::arg("data"), nb::arg("timeout"))
        .def(
            "copy_in_stream",
            [](NativeDatabase& self, std::uint64_t token, std::uint64_t sid, std::string sql, std::int64_t timeout,
               nb::handle records, Py_ssize_t width, nb::handle columns, nb::handle by_name_types,
               std::vector<std::uint32_t> oids, std::vector<std::string> names, bool strict, std::size_t limit_bytes) {
                self.copy_in_stream(token, sid, std::move(sql), timeout, records.ptr(), width, columns.ptr(),
                                    by_name_types.ptr(), std::move(oids), std::move(names), strict, limit_bytes);
            },
            nb::arg("token"), nb::arg("sid"), nb::arg("sql"), nb::arg("timeout"), nb::arg("records"), nb::arg("width"),
            nb::arg("columns").none(), nb::arg("by_name_types"), nb::arg("oids"), nb::arg("names"), nb::arg("strict"),
            nb::arg("limit_bytes"))
        .def("copy_stream_records", &NativeDatabase::copy_stream_records, nb::arg("token"))
        .def("copy_stream_wait", &NativeDatabase::copy_stream_wait, nb::arg("token"), nb::arg("wait_token"))
        .def(
            "copy_stream_end",
            [](NativeDatabase& self, std::uint64_t token, std::optional<std::string> error) {
                self.copy_stream_end(token, error ? &*error : nullptr);
            },
            nb::arg("token"), nb::arg("error").none())
        .def("copy_out", &NativeDatabase::copy_out, nb::arg("token"), nb::arg("sql"), nb::arg("timeout"))
        .def("copy_out_stream", &NativeDatabase::copy_out_stream, nb::arg("token"), nb::arg("sid"), nb::arg("sql"),
             nb::arg("timeout"), nb::arg("limit_bytes"))
        .def(
            "copy_out_take",
            [](NativeDatabase& self, std::uint64_t token, std::size_t max_bytes) {
                PyObject* data = self.copy_out_take(token, max_bytes);
                if (data == nullptr) throw nb::python_error();
                return nb::steal(data);
            },
            nb::arg("token"), nb::arg("max_bytes"))
        .def("copy_out_wait", &NativeDatabase::copy_out_wait, nb::arg("token"), nb::arg("wait_token"))
        .def("copy_out_close", &NativeDatabase::copy_out_close, nb::arg("token"))
        .def("session_copy_out", &NativeDatabase::session_copy_out, nb::arg("sid"), nb::arg("token"), nb::arg("sql"),
             nb::arg("timeout"))
        .def("open_listener", &NativeDatabase::open_listener, nb::arg("token"), nb::arg("events"))
        .def("listener_listen", &NativeDatabase::listener_listen, nb::arg("lid"), nb::arg("token"), nb::arg("channel"),
             nb::arg("listen"))
        .def("listener_connected", &NativeDatabase::listener_connected, nb::arg("lid"))
        .def("close_listener", &NativeDatabase::close_listener, nb::arg("lid"));
}

}  // namespace slipstream::python
