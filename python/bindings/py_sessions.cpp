// NativeSessions: SessionService for Python apps: the routes never take the GIL; handlers' operations answer
// through DbCore's queue and eventfd (awaited) or block with the GIL released (def handlers).
#include "py_sessions.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "db_core.h"
#include "native_app.h"
#include "option_values.h"
#include "slipstream/sessions.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {

using Setter = std::function<void(SessionsOptions&, const nb::handle&, const std::string&)>;
template <typename T>
Setter number(T SessionsOptions::*field, std::uint64_t min, std::uint64_t max) {
    return [field, min, max](SessionsOptions& o, const nb::handle& v, const std::string& key) {
        o.*field = static_cast<T>(option_values::count(v, key, min, max));
    };
}

const std::map<std::string, Setter>& setters() {
    using O = SessionsOptions;
    static const std::map<std::string, Setter> table = {
        {"store_url", [](O& o, const nb::handle& v, const std::string& k) { o.store_url = option_values::text(v, k); }},
        {"buffered", [](O& o, const nb::handle& v, const std::string& k) { o.buffered = option_values::flag(v, k); }},
        {"metrics", [](O& o, const nb::handle& v, const std::string& k) { o.metrics = option_values::flag(v, k); }},
        {"flush_ms", number(&O::flush_ms, 1, 60'000)},
        {"max_queued_events", number(&O::max_queued_events, 1, 100'000'000)},
        {"max_events", number(&O::max_events, 1, 1'000'000'000'000)},
        {"max_event_bytes", number(&O::max_event_bytes, 16, 64 << 20)},
        {"max_state_bytes", number(&O::max_state_bytes, 16, 64 << 20)},
        {"max_per_principal", number(&O::max_per_principal, 1, 1'000'000'000)},
        {"ttl_ms", number(&O::ttl_ms, 1, 30LL * 24 * 3'600'000)},
        {"sweep_interval_ms", number(&O::sweep_interval_ms, 10, 86'400'000)},
        {"max_page", number(&O::max_page, 1, 100'000)},
        {"append_in_flight", number(&O::append_in_flight, 1, 1'000)},
        {"append_batch", number(&O::append_batch, 1, 10'000)},
    };
    return table;
}

using Blocking = std::tuple<int, std::int64_t, nb::bytes>;

class NativeSessions {
  public:
    explicit NativeSessions(const nb::dict& options) {
        SessionsOptions o;
        for (auto [k, v] : options) {
            const std::string key = nb::cast<std::string>(k);
            auto it = setters().find(key);
            if (it == setters().end()) throw std::invalid_argument("unknown sessions option: " + key);
            it->second(o, v, key);
        }
        nb::gil_scoped_release release;
        service_ = std::make_unique<SessionService>(std::move(o));
    }

    std::string mount(NativeApp& app, const std::string& prefix, const std::string& openapi_path) {
        if (app.started()) throw std::invalid_argument("mount the sessions before the app starts");
        return service_->mount(app.app(), prefix, openapi_path);
    }

    int event_fd() {
        core_->own_eventfd();
        return core_->fd;
    }
    nb::object drain() {
        PyObject* answers = drain_completions(*core_);
        if (answers == nullptr) throw nb::python_error();
        return nb::steal(answers);
    }

    // Each operation: token > 0 queues its answer for drain(); token 0 blocks and returns it.
    nb::object create(std::uint64_t token, std::string principal, std::string metadata, std::string state,
                      std::int64_t ttl_ms) {
        return call(token, [&](SessionReplyCallback done) {
            service_->create(std::move(principal), std::move(metadata), std::move(state), ttl_ms, std::move(done));
        });
    }
    nb::object append(std::uint64_t token, std::string principal, std::string id,
                      std::vector<std::pair<std::string, std::string>> events, std::string key) {
        std::vector<SessionEventInput> batch;
        batch.reserve(events.size());
        for (auto& [role, content] : events)
            batch.push_back({std::move(role), std::move(content)});
        return call(token, [&](SessionReplyCallback done) {
            service_->append(std::move(principal), std::move(id), std::move(batch), std::move(key), std::move(done));
        });
    }
    nb::object events(std::uint64_t token, std::string principal, std::string id, std::int64_t after,
                      std::size_t limit) {
        return call(token, [&](SessionReplyCallback done) {
            service_->events(std::move(principal), std::move(id), after, limit, std::move(done));
        });
    }
    nb::object state(std::uint64_t token, std::string principal, std::string id) {
        return call(token, [&](SessionReplyCallback done) {
            service_->state(std::move(principal), std::move(id), std::move(done));
        });
    }
    nb::object write_state(std::uint64_t token, std::string principal, std::string id, std::string document,
                           std::optional<std::int64_t> expected_version, bool patch) {
        return call(token, [&](SessionReplyCallback done) {
            if (patch)
                return service_->patch_state(std::move(principal), std::move(id), std::move(document), expected_version,
                                             std::move(done));
            service_->update_state(std::move(principal), std::move(id), std::move(document), expected_version,
                                   std::move(done));
        });
    }

    void close() {
        nb::gil_scoped_release release;
        service_->close();
    }

  private:
    nb::object call(std::uint64_t token, const std::function<void(SessionReplyCallback)>& start) {
        if (token > 0) {
            start([core = core_, token](SessionReply r) {
                std::string payload = std::to_string(r.status) + " " + std::to_string(r.version) + " " + r.body;
                core->push(DbCompletion{token, store::JsonResult(std::move(payload))});
            });
            return nb::none();
        }
        SessionReply reply;
        {
            nb::gil_scoped_release release;
            auto answered = std::make_shared<std::promise<SessionReply>>();
            start([answered](SessionReply r) { answered->set_value(std::move(r)); });
            reply = answered->get_future().get();
        }
        return nb::make_tuple(reply.status, reply.version, nb::bytes(reply.body.data(), reply.body.size()));
    }

    std::shared_ptr<DbCore> core_ = std::make_shared<DbCore>();
    std::unique_ptr<SessionService> service_;
};

}  // namespace

void register_sessions(nb::module_& m) {
    nb::class_<NativeSessions>(m, "NativeSessions")
        .def(nb::init<const nb::dict&>(), nb::arg("options"))
        .def("mount", &NativeSessions::mount, nb::arg("app"), nb::arg("prefix"), nb::arg("openapi_path"))
        .def("event_fd", &NativeSessions::event_fd)
        .def("drain", &NativeSessions::drain)
        .def("create", &NativeSessions::create, nb::arg("token"), nb::arg("principal"), nb::arg("metadata"),
             nb::arg("state"), nb::arg("ttl_ms"))
        .def("append", &NativeSessions::append, nb::arg("token"), nb::arg("principal"), nb::arg("id"),
             nb::arg("events"), nb::arg("key"))
        .def("events", &NativeSessions::events, nb::arg("token"), nb::arg("principal"), nb::arg("id"), nb::arg("after"),
             nb::arg("limit"))
        .def("state", &NativeSessions::state, nb::arg("token"), nb::arg("principal"), nb::arg("id"))
        .def("write_state", &NativeSessions::write_state, nb::arg("token"), nb::arg("principal"), nb::arg("id"),
             nb::arg("document"), nb::arg("expected_version").none(), nb::arg("patch"))
        .def("cancel", [](NativeSessions&, std::uint64_t) {})
        .def("close", &NativeSessions::close);
}

}  // namespace slipstream::python
