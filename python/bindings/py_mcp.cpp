// NativeMcp: handlers queue calls (no GIL on the engine's threads); the package's asyncio loop drains them.
#include "py_mcp.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "executor.h"
#include "native_app.h"
#include "slipstream/json.h"
#include "slipstream/mcp.h"

namespace nb = nanobind;

namespace slipstream::python {
namespace {

/// One queued item: a call of the handler `key`; the cancellation of call `call_id` (no call); or the client's
/// answer to a request a call sent (`answer`: token in `call_id`, `ok`, the JSON in `text`).
struct InboxItem {
    std::uint64_t key = 0;
    std::uint64_t call_id = 0;
    std::optional<mcp::Call> call;
    std::string text;  // a completion's ref, or an answer's JSON
    bool answer = false;
    bool ok = false;
};

/// Calls from the engine's threads to the Python loop: a mutex-guarded queue and an eventfd written once per batch.
/// Shared by the server's handlers, which may outlive the NativeMcp.
class Inbox {
  public:
    Inbox() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
        if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    }
    ~Inbox() { ::close(fd_); }
    Inbox(const Inbox&) = delete;
    Inbox& operator=(const Inbox&) = delete;

    int fd() const { return fd_; }

    void push(InboxItem item) {
        bool wake = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            queue_.push_back(std::move(item));
            wake = !notified_;
            notified_ = true;
        }
        if (wake) {
            std::uint64_t one = 1;
            (void)!::write(fd_, &one, sizeof one);
        }
    }

    std::vector<InboxItem> take() {
        std::uint64_t count = 0;
        (void)!::read(fd_, &count, sizeof count);
        std::vector<InboxItem> out;
        std::lock_guard<std::mutex> lock(mutex_);
        notified_ = false;
        out.swap(queue_);
        return out;
    }

    std::uint64_t next_call_id() {
        std::lock_guard<std::mutex> lock(mutex_);
        return ++last_call_id_;
    }

  private:
    int fd_ = -1;
    std::mutex mutex_;
    std::vector<InboxItem> queue_;
    bool notified_ = false;
    std::uint64_t last_call_id_ = 0;
};

/// The Python face of one mcp::Call.
class NativeCall {
  public:
    NativeCall(mcp::Call call, std::uint64_t id, std::string ref_json, std::shared_ptr<Inbox> inbox)
        : call_(std::move(call)), id_(id), ref_json_(std::move(ref_json)), inbox_(std::move(inbox)) {}

    std::uint64_t id() const { return id_; }
    std::string arguments_json() const { return std::string(call_.arguments_json()); }
    std::string meta_json() const { return std::string(call_.meta_json()); }
    std::string name() const { return std::string(call_.name()); }
    std::string session_id() const { return std::string(call_.session_id()); }
    std::string principal() const { return std::string(call_.principal()); }
    std::string request_id() const { return std::string(call_.request_id()); }
    const std::string& ref_json() const { return ref_json_; }
    bool cancelled() const { return call_.cancelled(); }

    bool progress(double progress, std::optional<double> total, const std::string& message) {
        return call_.progress(progress, total, message);
    }
    bool log(int level, const std::string& data_json, const std::string& logger) {
        if (level < 0 || level > static_cast<int>(mcp::LogLevel::kEmergency))
            throw std::invalid_argument("log level out of range");
        return call_.log(static_cast<mcp::LogLevel>(level), data_json, logger);
    }
    /// A request to the client; its answer is queued as an answer item under `token`.
    bool request(const std::string& method, const std::string& params_json, std::uint64_t token,
                 std::uint32_t timeout_ms) {
        std::weak_ptr<Inbox> weak = inbox_;
        return call_.request(
            method, params_json,
            [weak, token](bool ok, std::string json) {
                if (auto in = weak.lock()) in->push(InboxItem{0, token, std::nullopt, std::move(json), true, ok});
            },
            timeout_ms);
    }
    std::string client_capabilities_json() const { return call_.client_capabilities_json(); }

    bool reply(std::string content_json, std::string structured_json, bool is_error) {
        mcp::ToolResult result;
        result.content_json = std::move(content_json);
        result.structured_json = std::move(structured_json);
        result.is_error = is_error;
        return call_.reply(std::move(result));
    }
    /// One text content block of `text` (UTF-8, escaped here; empty: the structured result laid out with an indent
    /// of 2, as pydantic's to_json(indent=2) writes it) and the structured result (`checked`: serialized from an
    /// instance of the output model, not checked against the output schema again).
    bool reply_text(const nb::bytes& text, const nb::bytes& structured_json, bool checked) {
        mcp::ToolResult result;
        const std::string laid_out =
            text.size() == 0 ? json_indent(std::string_view(structured_json.c_str(), structured_json.size()), 2)
                             : std::string();
        const std::string_view body =
            text.size() == 0 ? std::string_view(laid_out) : std::string_view(text.c_str(), text.size());
        result.content_json.reserve(body.size() + body.size() / 4 + 32);
        result.content_json = R"([{"type":"text","text":)";
        result.content_json += json_quote(body);
        result.content_json += "}]";
        result.structured_json.assign(structured_json.c_str(), structured_json.size());
        result.structured_checked = checked;
        return call_.reply(std::move(result));
    }
    bool reply_json(const std::string& result_json) { return call_.reply_json(result_json); }
    bool fail(int code, const std::string& message, const std::string& data_json) {
        return call_.fail(code, message, data_json);
    }

  private:
    mcp::Call call_;
    std::uint64_t id_;
    std::string ref_json_;
    std::shared_ptr<Inbox> inbox_;
};

/// A handler that queues its call under `key`; the call's cancellation is queued too.
mcp::CallHandler queue_calls(const std::shared_ptr<Inbox>& inbox, std::uint64_t key) {
    return [inbox, key](mcp::Call call) {
        std::uint64_t id = inbox->next_call_id();
        std::weak_ptr<Inbox> weak = inbox;
        call.on_cancel([weak, id] {
            if (auto in = weak.lock()) in->push(InboxItem{0, id, std::nullopt, {}, false, false});
        });
        inbox->push(InboxItem{key, id, std::move(call), {}, false, false});
    };
}

class NativeMcp {
  public:
    explicit NativeMcp(mcp::ServerConfig config)
        : server_(std::make_unique<mcp::Server>(std::move(config))), inbox_(std::make_shared<Inbox>()) {}

    void add_tool(std::uint64_t key, std::string name, std::string title, std::string description,
                  std::string input_schema, std::string output_schema, std::string annotations, std::string meta,
                  std::uint32_t timeout_ms, std::uint32_t max_concurrency) {
        mcp::Tool t;
        t.name = std::move(name);
        t.title = std::move(title);
        t.description = std::move(description);
        t.input_schema_json = std::move(input_schema);
        t.output_schema_json = std::move(output_schema);
        t.annotations_json = std::move(annotations);
        t.meta_json = std::move(meta);
        t.timeout_ms = timeout_ms;
        t.max_concurrency = max_concurrency;
        t.handler = queue_calls(inbox_, key);
        server_->tool(std::move(t));
    }

    void add_resource(std::uint64_t key, std::string uri, std::string name, std::string title, std::string description,
                      std::string mime_type, std::optional<std::uint64_t> size, std::string annotations) {
        mcp::Resource r;
        r.uri = std::move(uri);
        r.name = std::move(name);
        r.title = std::move(title);
        r.description = std::move(description);
        r.mime_type = std::move(mime_type);
        r.size = size;
        r.annotations_json = std::move(annotations);
        r.handler = queue_calls(inbox_, key);
        server_->resource(std::move(r));
    }

    void add_template(std::uint64_t key, std::string uri_template, std::string name, std::string title,
                      std::string description, std::string mime_type, std::string annotations) {
        mcp::ResourceTemplate t;
        t.uri_template = std::move(uri_template);
        t.name = std::move(name);
        t.title = std::move(title);
        t.description = std::move(description);
        t.mime_type = std::move(mime_type);
        t.annotations_json = std::move(annotations);
        t.handler = queue_calls(inbox_, key);
        server_->resource_template(std::move(t));
    }

    void add_prompt(std::uint64_t key, std::string name, std::string title, std::string description,
                    const std::vector<std::tuple<std::string, std::string, bool>>& arguments) {
        mcp::Prompt p;
        p.name = std::move(name);
        p.title = std::move(title);
        p.description = std::move(description);
        for (const auto& [arg_name, arg_description, required] : arguments)
            p.arguments.push_back(mcp::PromptArgument{arg_name, arg_description, required});
        p.handler = queue_calls(inbox_, key);
        server_->prompt(std::move(p));
    }

    void set_completion(std::uint64_t key) {
        std::shared_ptr<Inbox> inbox = inbox_;
        server_->completion([inbox, key](std::string_view ref_json, mcp::Call call) {
            std::uint64_t id = inbox->next_call_id();
            inbox->push(InboxItem{key, id, std::move(call), std::string(ref_json), false, false});
        });
    }

    bool remove_tool(const std::string& name) { return server_->remove_tool(name); }
    bool remove_resource(const std::string& uri) { return server_->remove_resource(uri); }
    bool remove_prompt(const std::string& name) { return server_->remove_prompt(name); }
    void resource_updated(const std::string& uri) { server_->resource_updated(uri); }

    int fd() const { return inbox_->fd(); }

    /// What arrived since the last drain, each a tuple led by its kind: (0, key, call_id, NativeCall) a call,
    /// (1, call_id) the cancellation of a call, (2, token, ok, json_text) the client's answer to a request.
    nb::list drain() {
        nb::list out;
        for (InboxItem& item : inbox_->take()) {
            if (item.answer) {
                out.append(nb::make_tuple(2, item.call_id, item.ok, std::move(item.text)));
            } else if (!item.call) {
                out.append(nb::make_tuple(1, item.call_id));
            } else {
                nb::object call =
                    nb::cast(new NativeCall(std::move(*item.call), item.call_id, std::move(item.text), inbox_),
                             nb::rv_policy::take_ownership);
                out.append(nb::make_tuple(0, item.key, item.call_id, call));
            }
        }
        return out;
    }

    void mount(NativeApp& app, const std::string& path) {
        if (app.started()) throw std::invalid_argument("mount the MCP server before the app starts");
        server_->mount(app.app(), path);
    }

    int serve_stdio(int in_fd, int out_fd) {
        nb::gil_scoped_release release;
        return server_->serve_stdio(in_fd, out_fd);
    }

    void stop() { server_->stop(); }

  private:
    std::unique_ptr<mcp::Server> server_;
    std::shared_ptr<Inbox> inbox_;
};

template <typename T>
void set_number(nb::handle v, T& field, const std::string& key) {
    if (!nb::isinstance<nb::int_>(v) || nb::isinstance<nb::bool_>(v))
        throw std::invalid_argument("MCP option '" + key + "' must be an int");
    const long long x = nb::cast<long long>(v);
    if (x < 0 || static_cast<unsigned long long>(x) > static_cast<unsigned long long>(T(-1)))
        throw std::invalid_argument("MCP option '" + key + "' is out of range");
    field = static_cast<T>(x);
}

/// ServerConfig from the package's dict (slipstream/mcp/server.py): one row per field name.
mcp::ServerConfig config_from_dict(const nb::dict& options) {
    mcp::ServerConfig c;
    using Setter = std::function<void(nb::handle, const std::string&)>;
    auto text = [](std::string& f) -> Setter {
        return [&f](nb::handle v, const std::string& key) {
            if (!nb::isinstance<nb::str>(v)) throw std::invalid_argument("MCP option '" + key + "' must be a str");
            f = nb::cast<std::string>(v);
        };
    };
    auto texts = [](std::vector<std::string>& f) -> Setter {
        return [&f](nb::handle v, const std::string& key) {
            if (!nb::isinstance<nb::list>(v)) throw std::invalid_argument("MCP option '" + key + "' must be a list");
            f = nb::cast<std::vector<std::string>>(v);
        };
    };
    auto flag = [](bool& f) -> Setter {
        return [&f](nb::handle v, const std::string& key) {
            if (!nb::isinstance<nb::bool_>(v)) throw std::invalid_argument("MCP option '" + key + "' must be a bool");
            f = nb::cast<bool>(v);
        };
    };
    auto u32 = [](std::uint32_t& f) -> Setter {
        return [&f](nb::handle v, const std::string& k) { set_number(v, f, k); };
    };
    auto size = [](std::size_t& f) -> Setter {
        return [&f](nb::handle v, const std::string& k) { set_number(v, f, k); };
    };
    const std::map<std::string, Setter, std::less<>> table = {
        {"name", text(c.name)},
        {"version", text(c.version)},
        {"title", text(c.title)},
        {"instructions", text(c.instructions)},
        {"allowed_origins", texts(c.allowed_origins)},
        {"json_response", flag(c.json_response)},
        {"stateless", flag(c.stateless)},
        {"session_idle_ms", u32(c.session_idle_ms)},
        {"max_sessions", u32(c.max_sessions)},
        {"max_sessions_per_principal", u32(c.max_sessions_per_principal)},
        {"max_message_bytes", size(c.max_message_bytes)},
        {"max_batch", size(c.max_batch)},
        {"tool_timeout_ms", u32(c.tool_timeout_ms)},
        {"page_size", size(c.page_size)},
        {"replay_events", size(c.replay_events)},
        {"max_json_depth", size(c.max_json_depth)},
        {"max_json_members", size(c.max_json_members)},
        {"max_calls_per_session", size(c.max_calls_per_session)},
        {"max_reported_errors", size(c.max_reported_errors)},
        {"allowed_hosts", texts(c.allowed_hosts)},
        {"resumable_streams", flag(c.resumable_streams)},
        {"stream_retry_ms", u32(c.stream_retry_ms)},
        {"max_subscriptions", size(c.max_subscriptions)},
        {"store_url", text(c.store_url)},
        {"store_check_ms", u32(c.store_check_ms)},
        {"store_connections", u32(c.store_connections)},
        {"store_timeout_ms", u32(c.store_timeout_ms)},
        {"store_poll_ms", u32(c.store_poll_ms)},
        {"cache_ttl_ms", u32(c.cache_ttl_ms)},
        {"request_state_key", text(c.request_state_key)},
        {"request_state_ttl_ms", u32(c.request_state_ttl_ms)},
        {"resource", text(c.resource)},
        {"authorization_servers", texts(c.authorization_servers)},
        {"scopes_supported", texts(c.scopes_supported)},
        {"bearer_methods_supported", texts(c.bearer_methods_supported)},
        {"resource_name", text(c.resource_name)},
        {"resource_metadata_url", text(c.resource_metadata_url)},
        {"stream_store_events", size(c.stream_store_events)},
        {"stream_store_bytes", size(c.stream_store_bytes)},
        {"stream_store_ttl_ms", u32(c.stream_store_ttl_ms)},
    };
    for (auto [key, value] : options) {
        const std::string name = nb::cast<std::string>(key);
        auto it = table.find(name);
        if (it == table.end()) throw std::invalid_argument("unknown MCP option '" + name + "'");
        it->second(value, name);
    }
    return c;
}

}  // namespace

void register_mcp(nb::module_& m) {
    m.def("mcp_protocol_versions", [] { return mcp::supported_protocol_versions(); });
    // `def` tools run inline on the executor thread, under its blocked-handler hand-off (executor.h): one that
    // blocks past Executor::kBlockedAfter lets another thread drive the loop meanwhile.
    m.def("mcp_inline_calls", [] {
        Executor* e = Executor::current();
        return e != nullptr && e->can_hand_off();
    });
    m.def("mcp_call_blocking", [](nb::callable fn) {
        Executor* e = Executor::current();
        const bool watched = e != nullptr && e->can_hand_off();
        if (watched) e->begin_sync_call();
        PyObject* result = PyObject_CallNoArgs(fn.ptr());
        if (watched) e->end_sync_call();
        if (result == nullptr) throw nb::python_error();
        return nb::steal(result);
    });
    m.def("mcp_take_handed_off", [] { return Executor::take_handed_off(); });

    nb::class_<NativeCall>(m, "NativeCall")
        .def_prop_ro("id", &NativeCall::id)
        .def_prop_ro("arguments_json", &NativeCall::arguments_json)
        .def_prop_ro("meta_json", &NativeCall::meta_json)
        .def_prop_ro("name", &NativeCall::name)
        .def_prop_ro("session_id", &NativeCall::session_id)
        .def_prop_ro("principal", &NativeCall::principal)
        .def_prop_ro("request_id", &NativeCall::request_id)
        .def_prop_ro("ref_json", &NativeCall::ref_json)
        .def("cancelled", &NativeCall::cancelled)
        .def("progress", &NativeCall::progress, nb::arg("progress"), nb::arg("total").none(), nb::arg("message"))
        .def("log", &NativeCall::log, nb::arg("level"), nb::arg("data_json"), nb::arg("logger"))
        .def("request", &NativeCall::request, nb::arg("method"), nb::arg("params_json"), nb::arg("token"),
             nb::arg("timeout_ms"))
        .def("client_capabilities_json", &NativeCall::client_capabilities_json)
        .def("reply", &NativeCall::reply, nb::arg("content_json"), nb::arg("structured_json"), nb::arg("is_error"))
        .def("reply_text", &NativeCall::reply_text, nb::arg("text"), nb::arg("structured_json"), nb::arg("checked"))
        .def("reply_json", &NativeCall::reply_json, nb::arg("result_json"))
        .def("fail", &NativeCall::fail, nb::arg("code"), nb::arg("message"), nb::arg("data_json"));

    nb::class_<NativeMcp>(m, "NativeMcp")
        .def(
            "__init__", [](NativeMcp* self, const nb::dict& config) { new (self) NativeMcp(config_from_dict(config)); },
            nb::arg("config"))
        .def("add_tool", &NativeMcp::add_tool, nb::arg("key"), nb::arg("name"), nb::arg("title"),
             nb::arg("description"), nb::arg("input_schema"), nb::arg("output_schema"), nb::arg("annotations"),
             nb::arg("meta"), nb::arg("timeout_ms"), nb::arg("max_concurrency"))
        .def("add_resource", &NativeMcp::add_resource, nb::arg("key"), nb::arg("uri"), nb::arg("name"),
             nb::arg("title"), nb::arg("description"), nb::arg("mime_type"), nb::arg("size").none(),
             nb::arg("annotations"))
        .def("add_template", &NativeMcp::add_template, nb::arg("key"), nb::arg("uri_template"), nb::arg("name"),
             nb::arg("title"), nb::arg("description"), nb::arg("mime_type"), nb::arg("annotations"))
        .def("add_prompt", &NativeMcp::add_prompt, nb::arg("key"), nb::arg("name"), nb::arg("title"),
             nb::arg("description"), nb::arg("arguments"))
        .def("set_completion", &NativeMcp::set_completion, nb::arg("key"))
        .def("remove_tool", &NativeMcp::remove_tool, nb::arg("name"))
        .def("remove_resource", &NativeMcp::remove_resource, nb::arg("uri"))
        .def("remove_prompt", &NativeMcp::remove_prompt, nb::arg("name"))
        .def("resource_updated", &NativeMcp::resource_updated, nb::arg("uri"))
        .def_prop_ro("fd", &NativeMcp::fd)
        .def("drain", &NativeMcp::drain)
        .def("mount", &NativeMcp::mount, nb::arg("app"), nb::arg("path"))
        .def("serve_stdio", &NativeMcp::serve_stdio, nb::arg("in_fd"), nb::arg("out_fd"))
        .def("stop", &NativeMcp::stop);
}

}  // namespace slipstream::python
