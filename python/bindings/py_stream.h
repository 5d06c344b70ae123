// StreamWriter: a Python-driven response body (StreamingResponse, FileResponse, SSE) over a Responder.
#pragma once

#include <Python.h>

#include <memory>
#include <optional>
#include <string_view>

#include "slipstream/request.h"
#include "slipstream/responder.h"
#include "slipstream/response.h"

namespace nanobind {
class module_;
}

namespace slipstream::python {

/// Owned by Python (the task that produces the body holds it). Executor thread, GIL held, except that the
/// cancel eventfd is written by the connection's I/O thread when the client leaves.
///
/// The producer (slipstream/_streaming.py) either sends the whole response at once (send) or opens a stream
/// (start, write..., end). abort() gives up: before start the client gets a 500, after it the connection is
/// cut so a truncated body never looks complete. A writer dropped unanswered behaves as abort().
class StreamWriter {
  public:
    StreamWriter(const Request& request, Responder responder, Response head);
    ~StreamWriter();
    StreamWriter(const StreamWriter&) = delete;
    StreamWriter& operator=(const StreamWriter&) = delete;

    /// The whole response: the head with `body` (Content-Length). False when already answered or the client left.
    bool send(std::string_view body);
    /// Sends the head; the body follows with chunked encoding. False when already answered or the client left.
    bool start();
    /// One body chunk of a started stream (empty chunks are skipped). False once the client left.
    bool write(std::string_view chunk);
    bool end();
    void abort();
    /// Reports the current Python error (if any) and answers Starlette's plain 500, or cuts a started stream.
    void fail();

    bool cancelled() const;
    bool head_only() const { return head_only_; }
    /// A request header (first of that name), while the response is not yet sent; nullopt otherwise.
    std::optional<std::string_view> header(std::string_view name) const;
    /// Replaces the head before send() or start() (a file response decides 206/304/416 from the request).
    void set_head(Response head);
    bool started() const { return started_; }
    /// An eventfd that turns readable when the client leaves (made on the first call; closed with the writer).
    int cancel_fd();
    /// Flow control: false while the stream's queued bytes are over the high-water mark (Responder::writable).
    bool writable() const;
    /// Arms a one-shot notice and returns its eventfd (reset first; closed with the writer): it turns readable
    /// once the queue drained to the low-water mark, the stream ended or the client left, at once if so now.
    int writable_fd();

  private:
    struct CancelSignal;

    Request request_;  // valid while responder_ holds the response open
    std::optional<Responder> responder_;
    Response head_;
    bool head_only_ = false;
    bool started_ = false;
    std::shared_ptr<CancelSignal> signal_;
    std::shared_ptr<CancelSignal> writable_signal_;
};

/// Called by PyRoute::answer_object when a rendered body is not bytes: hands `head` and the responder to a new
/// StreamWriter and calls `body._slipstream_start(writer)`, which answers (now or from an asyncio task).
/// Failures before anything was sent answer Starlette's 500.
void answer_body_object(const Request& request, Responder& responder, Response head, PyObject* body) noexcept;

/// Registers StreamWriter and format_sse() (FastAPI's SSE bytes, from the engine's encoder) on the module.
void register_stream(nanobind::module_& m);

}  // namespace slipstream::python
