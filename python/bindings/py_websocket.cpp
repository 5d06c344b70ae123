// WebSocket routes for Python: events from the I/O threads to the executor's loop through one eventfd.
#include "py_websocket.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "native_app.h"

namespace nb = nanobind;

namespace slipstream::python {

namespace {
enum EventKind : int { kOpen = 0, kText = 1, kBinary = 2, kClose = 3, kDrain = 4 };
}  // namespace

/// Per connection, kept as the WebSocket's user data: its id, and the bytes handed to Python and not yet
/// received by the handler (past a cap the connection is closed with 1013 rather than buffering without end).
struct WsConnState {
    std::uint64_t id = 0;
    std::atomic<std::size_t> inbound{0};
};

struct WsHubCore {
    struct Event {
        int kind;
        std::uint64_t id;
        std::shared_ptr<PyWebSocket> open;
        std::string data;
        int code = 0;
    };

    WsHubCore() : fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
        if (fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    }
    ~WsHubCore() { ::close(fd); }

    // Any thread, no GIL.
    void push(Event&& e) {
        bool wake;
        {
            std::lock_guard lock(mutex);
            queue.push_back(std::move(e));
            wake = !notified;
            notified = true;
        }
        if (wake) {
            std::uint64_t one = 1;
            (void)!::write(fd, &one, sizeof one);
        }
    }

    std::vector<Event> take() {
        std::uint64_t v;
        (void)!::read(fd, &v, sizeof v);
        std::vector<Event> out;
        std::lock_guard lock(mutex);
        notified = false;
        out.swap(queue);
        return out;
    }

    int fd;
    std::mutex mutex;
    std::vector<Event> queue;
    bool notified = false;
    std::atomic<std::uint64_t> next_id{0};
};

WebSocketHub::WebSocketHub() : core_(std::make_shared<WsHubCore>()) {}

int WebSocketHub::fileno() const {
    return core_->fd;
}

namespace {

// "{room}", "{id:int}" -> "room", "id".
std::vector<std::string> param_names(const std::string& pattern) {
    std::vector<std::string> names;
    for (std::size_t i = pattern.find('{'); i != std::string::npos; i = pattern.find('{', i + 1)) {
        std::size_t end = pattern.find_first_of(":}", i);
        if (end == std::string::npos) break;
        names.push_back(pattern.substr(i + 1, end - i - 1));
    }
    return names;
}

std::shared_ptr<PyWebSocket> describe(WebSocket& ws, const std::vector<std::string>& names, int route,
                                      std::shared_ptr<WsConnState> state) {
    auto p = std::make_shared<PyWebSocket>();
    Request req = ws.request();
    p->ws = ws;
    p->id = state->id;
    p->route = route;
    p->path = std::string(req.path());
    p->query = std::string(req.query_string());
    p->client = req.peer();
    p->subprotocol = std::string(ws.subprotocol());
    p->offered = ws.offered_subprotocols();
    req.for_each_header(
        [&](std::string_view n, std::string_view v) { p->headers.emplace_back(std::string(n), std::string(v)); });
    for (const std::string& n : names) {
        if (auto v = req.path_param(n)) p->path_params.emplace_back(n, std::string(*v));
    }
    p->state = std::move(state);
    return p;
}

nb::object payload(const WsHubCore::Event& e) {
    if (e.kind == kText || e.kind == kClose) {
        return nb::steal(PyUnicode_DecodeUTF8(e.data.data(), static_cast<Py_ssize_t>(e.data.size()), "replace"));
    }
    if (e.kind == kBinary) return nb::bytes(e.data.data(), e.data.size());
    return nb::none();
}

}  // namespace

void add_websocket_route(NativeApp& app, const std::string& pattern, WebSocketHub& hub, int route) {
    if (app.started()) throw std::invalid_argument("routes must be added before the app starts");
    std::shared_ptr<WsHubCore> core = hub.core();
    std::vector<std::string> names = param_names(pattern);
    std::size_t cap = std::max<std::size_t>(16 * app.app().options().ws_max_message_bytes, 1 << 20);
    WebSocketHandler h;
    h.manual_accept = true;  // the handler's `await websocket.accept(subprotocol=..., headers=...)` answers
    h.on_open = [core, names, route](WebSocket& ws) {
        auto state = std::make_shared<WsConnState>();
        state->id = ++core->next_id;
        ws.set_user_data(state);
        core->push({kOpen, state->id, describe(ws, names, route, state), {}, 0});
    };
    h.on_message = [core, cap](WebSocket& ws, std::string_view data, bool is_text) {
        auto state = std::static_pointer_cast<WsConnState>(ws.user_data());
        if (!state) return;
        if (state->inbound.load() + data.size() > cap) {
            ws.close(1013, "the application is not keeping up");
            return;
        }
        state->inbound.fetch_add(data.size());
        core->push({is_text ? kText : kBinary, state->id, nullptr, std::string(data), 0});
    };
    h.on_drain = [core](WebSocket& ws) {
        if (auto state = std::static_pointer_cast<WsConnState>(ws.user_data())) {
            core->push({kDrain, state->id, nullptr, {}, 0});
        }
    };
    h.on_close = [core](WebSocket& ws, std::uint16_t code, std::string_view reason) {
        if (auto state = std::static_pointer_cast<WsConnState>(ws.user_data())) {
            core->push({kClose, state->id, nullptr, std::string(reason), code});
        }
    };
    app.app().websocket(pattern, std::move(h));
}

void register_websocket(nb::module_& m) {
    nb::class_<PyWebSocket>(m, "NativeWebSocket")
        .def("send_text", [](PyWebSocket& s, const std::string& t) { return static_cast<int>(s.ws.send_text(t)); })
        .def("send_bytes",
             [](PyWebSocket& s, nb::bytes b) {
                 return static_cast<int>(s.ws.send_binary(std::string_view(b.c_str(), b.size())));
             })
        .def(
            "close",
            [](PyWebSocket& s, int code, const std::string& reason) {
                return s.ws.close(static_cast<std::uint16_t>(code), reason);
            },
            nb::arg("code") = 1000, nb::arg("reason") = "")
        .def(
            "accept",
            [](PyWebSocket& s, const std::string& subprotocol,
               std::vector<std::pair<std::string, std::string>> headers) {
                nb::gil_scoped_release unlocked;
                return s.ws.accept(subprotocol, std::move(headers));
            },
            nb::arg("subprotocol") = "", nb::arg("headers") = std::vector<std::pair<std::string, std::string>>{})
        .def(
            "reject",
            [](PyWebSocket& s, int status, const std::string& body, const std::string& content_type) {
                Response r(status);
                r.body = body;
                if (!body.empty()) r.content_type = content_type;
                return s.ws.reject(std::move(r));
            },
            nb::arg("status"), nb::arg("body") = "", nb::arg("content_type") = "text/plain; charset=utf-8")
        .def_prop_ro("is_accepted", [](const PyWebSocket& s) { return s.ws.is_accepted(); })
        .def_ro("offered", &PyWebSocket::offered)
        .def("consumed", [](PyWebSocket& s, std::size_t n) { s.state->inbound.fetch_sub(n); })
        .def_prop_ro("is_open", [](const PyWebSocket& s) { return s.ws.is_open(); })
        .def_prop_ro("buffered_amount", [](const PyWebSocket& s) { return s.ws.buffered_amount(); })
        .def_ro("id", &PyWebSocket::id)
        .def_ro("route", &PyWebSocket::route)
        .def_ro("path", &PyWebSocket::path)
        .def_ro("query", &PyWebSocket::query)
        .def_ro("client", &PyWebSocket::client)
        .def_ro("subprotocol", &PyWebSocket::subprotocol)
        .def_ro("headers", &PyWebSocket::headers)
        .def_ro("path_params", &PyWebSocket::path_params);

    nb::class_<WebSocketHub>(m, "WebSocketHub")
        .def(nb::init<>())
        .def("fileno", &WebSocketHub::fileno)
        .def("drain", [](WebSocketHub& hub) {
            // Executor thread, GIL held: every event since the last drain, as (kind, id, payload, code).
            nb::list out;
            for (WsHubCore::Event& e : hub.core()->take()) {
                nb::object p = e.kind == kOpen ? nb::cast(e.open) : payload(e);
                out.append(nb::make_tuple(e.kind, e.id, p, e.code));
            }
            return out;
        });

    m.def("add_websocket_route", &add_websocket_route, nb::arg("app"), nb::arg("pattern"), nb::arg("hub"),
          nb::arg("route"));
}

}  // namespace slipstream::python
