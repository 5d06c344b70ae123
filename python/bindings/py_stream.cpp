// StreamWriter: streamed and whole responses produced by Python; cancel and writable notices through eventfds.
#include "py_stream.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "py_ref.h"
#include "py_route.h"
#include "slipstream/sse.h"

namespace nb = nanobind;

namespace slipstream::python {

// An eventfd the I/O thread writes (the client left; the stream's queue drained); shared with the Responder's
// callback so a late callback never writes to a closed (or reused) descriptor.
struct StreamWriter::CancelSignal {
    int fd = -1;
    CancelSignal() : fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
        if (fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    }
    ~CancelSignal() { ::close(fd); }
    void fire() const {
        std::uint64_t one = 1;
        (void)!::write(fd, &one, sizeof one);
    }
    void reset() const {
        std::uint64_t value = 0;
        (void)!::read(fd, &value, sizeof value);
    }
};

StreamWriter::StreamWriter(const Request& request, Responder responder, Response head)
    : request_(request),
      responder_(std::move(responder)),
      head_(std::move(head)),
      head_only_(request.method() == "HEAD") {}

std::optional<std::string_view> StreamWriter::header(std::string_view name) const {
    if (!responder_ || started_) return std::nullopt;
    return request_.header(name);
}

void StreamWriter::set_head(Response head) {
    if (!started_) head_ = std::move(head);
}

StreamWriter::~StreamWriter() = default;  // an unanswered Responder answers 500; an open stream is cut

bool StreamWriter::send(std::string_view body) {
    if (!responder_ || started_) return false;
    Response r = std::move(head_);
    r.body.assign(body);
    bool ok = responder_->send(std::move(r));
    responder_.reset();
    return ok;
}

bool StreamWriter::start() {
    if (!responder_ || started_) return false;
    started_ = true;
    return responder_->start_stream(std::move(head_));
}

bool StreamWriter::write(std::string_view chunk) {
    if (!responder_ || !started_) return false;
    if (chunk.empty()) return !responder_->cancelled();
    return responder_->write(chunk);
}

bool StreamWriter::end() {
    if (!responder_ || !started_) return false;
    bool ok = responder_->end();
    responder_.reset();
    return ok;
}

void StreamWriter::abort() {
    responder_.reset();
}

void StreamWriter::fail() {
    if (!responder_) return;
    if (started_) {
        if (PyErr_Occurred()) PyErr_WriteUnraisable(nullptr);
        responder_.reset();
        return;
    }
    answer_internal_error(*responder_);
    responder_.reset();
}

bool StreamWriter::cancelled() const {
    return !responder_ || responder_->cancelled();
}

bool StreamWriter::writable() const {
    return !responder_ || responder_->writable();
}

int StreamWriter::writable_fd() {
    if (!writable_signal_) writable_signal_ = std::make_shared<CancelSignal>();
    writable_signal_->reset();
    if (responder_) {
        responder_->on_writable([signal = writable_signal_] { signal->fire(); });
    } else {
        writable_signal_->fire();
    }
    return writable_signal_->fd;
}

int StreamWriter::cancel_fd() {
    if (!signal_) {
        signal_ = std::make_shared<CancelSignal>();
        if (responder_) {
            responder_->on_cancel([signal = signal_] { signal->fire(); });
        } else {
            signal_->fire();
        }
    }
    return signal_->fd;
}

void answer_body_object(const Request& request, Responder& responder, Response head, PyObject* body) noexcept {
    auto* writer = new StreamWriter(request, std::move(responder), std::move(head));
    PyRef writer_obj;
    try {
        writer_obj = PyRef::steal(nb::cast(writer, nb::rv_policy::take_ownership).release().ptr());
    } catch (...) {
        delete writer;  // its Responder answers 500
        PyErr_Clear();
        return;
    }
    PyRef ok = PyRef::steal(PyObject_CallMethod(body, "_slipstream_start", "O", writer_obj.get()));
    if (!ok) {
        writer->fail();
    }
}

namespace {

// FastAPI's format_sse_event() bytes, from the engine's SSE encoder (src/http/sse) through the public API.
nb::bytes format_sse(std::optional<std::string> data, std::optional<std::string> event, std::optional<std::string> id,
                     std::optional<long long> retry, std::optional<std::string> comment) {
    SseFields fields;
    if (comment) fields.comment = *comment;
    if (event) fields.event = *event;
    if (data) fields.data = *data;
    if (id) fields.id = *id;
    if (retry) fields.retry = *retry;
    std::string out = format_sse_fields(fields);
    return nb::bytes(out.data(), out.size());
}

std::string_view bytes_view(nb::handle data) {
    char* buffer = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(data.ptr(), &buffer, &size) < 0) throw nb::python_error();
    return {buffer, static_cast<std::size_t>(size)};
}

}  // namespace

void register_stream(nb::module_& m) {
    nb::class_<StreamWriter>(m, "StreamWriter")
        .def(
            "send", [](StreamWriter& w, nb::bytes body) { return w.send(bytes_view(body)); }, nb::arg("body"))
        .def("start", &StreamWriter::start)
        .def(
            "write", [](StreamWriter& w, nb::bytes chunk) { return w.write(bytes_view(chunk)); }, nb::arg("chunk"))
        .def("end", &StreamWriter::end)
        .def("abort", &StreamWriter::abort)
        .def("fail", &StreamWriter::fail)
        .def("cancel_fd", &StreamWriter::cancel_fd)
        .def("writable_fd", &StreamWriter::writable_fd)
        .def_prop_ro("writable", &StreamWriter::writable)
        .def_prop_ro("cancelled", &StreamWriter::cancelled)
        .def_prop_ro("head_only", &StreamWriter::head_only)
        .def(
            "header",
            [](const StreamWriter& w, const std::string& name) -> nb::object {
                auto v = w.header(name);
                if (!v) return nb::none();
                return nb::steal(PyUnicode_DecodeLatin1(v->data(), static_cast<Py_ssize_t>(v->size()), nullptr));
            },
            nb::arg("name"))
        .def(
            "set_head",
            [](StreamWriter& w, int status, std::optional<std::string> content_type,
               std::vector<std::pair<std::string, std::string>> headers) {
                Response r(status);
                r.content_type = content_type.value_or("");
                r.headers = std::move(headers);
                w.set_head(std::move(r));
            },
            nb::arg("status"), nb::arg("content_type").none(), nb::arg("headers"))
        .def_prop_ro("started", &StreamWriter::started);
    m.def("format_sse", &format_sse, nb::arg("data").none(), nb::arg("event").none(), nb::arg("id").none(),
          nb::arg("retry").none(), nb::arg("comment").none());
}

}  // namespace slipstream::python
