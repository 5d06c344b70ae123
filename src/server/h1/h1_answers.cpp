// H1Session's answers in request order: slots for asynchronous answers (its ResponseSink) and streamed responses.
#include <algorithm>

#include "server/conn/request_pipeline.h"
#include "server/h1/h1_session.h"

namespace slipstream::server {

namespace h1 = http::h1;

void H1Session::dispatch_async(RequestPipeline& pipeline, PipelineRequest& req, const EncodeContext& ctx) {
    HandlerCount::Ticket admitted = pipeline.admit();
    if (!admitted && worker_.handlers()) {  // max_handlers_in_flight run already
        Response refusal = RequestPipeline::overloaded();
        pipeline.add_cors_fields(req.state.headers, refusal);
        answer_now(std::move(refusal), ctx, req.record);
        return;
    }
    SinkLink link = pipeline.detach(req, *this);
    std::shared_ptr<slipstream::detail::PendingResponse> pending = link.shared();
    pending->admitted = std::move(admitted);
    slipstream::detail::PendingResponse* raw = pending.get();
    pending->handler_timer.set_callback([this, raw] { on_handler_timeout(*raw); });
    // The answer's place in the pipeline of responses (HTTP/1.1 answers leave in request order).
    Slot slot;
    slot.version = ctx.version;
    slot.keep_alive = ctx.keep_alive;
    slot.head_only = ctx.head_only;
    slot.close_after = !ctx.keep_alive;
    slot.record = req.record;
    slot.request_id = pending->request.request_id;
    slot.pending = std::move(link);
    if (slot.close_after) conn_.set_closing();
    slots_.push_back(std::move(slot));
    pipeline.call_async(req, pending);
}

void H1Session::observe_slot(Slot& slot, std::size_t before, int status) {
    slot.response_bytes += slot.bytes.size() - before;
    if (slot.status == 0) slot.status = status;
}

OutputQueue& H1Session::queue_slot(bool close_after) {
    Slot slot;
    slot.complete = true;
    slot.close_after = close_after;
    slots_.push_back(std::move(slot));
    return slots_.back().bytes;
}

// ---- asynchronous answers (loop thread) ----

H1Session::Slot* H1Session::find_slot(const slipstream::detail::PendingResponse& pending) {
    for (Slot& s : slots_) {
        if (s.pending.get() == &pending) return &s;
    }
    return nullptr;
}

EncodeContext H1Session::slot_context(Slot& slot) {
    // Keep-alive is decided here, when the answer is encoded, not at dispatch: a drain that began while the
    // handler ran makes the last answer the connection owes (no later slot, no request being read) say
    // Connection: close, so the client reconnects instead of losing its next request to our close.
    if (conn_.draining() && slot.keep_alive && &slot == &slots_.back() && conn_.input().empty() &&
        phase_ == Phase::kHead) {
        slot.keep_alive = false;
        slot.close_after = true;
        conn_.set_closing();  // read no further request: the client was told to go
    }
    return EncodeContext{slot.version,
                         slot.keep_alive,
                         slot.head_only,
                         worker_.date(),
                         worker_.options().server_header,
                         worker_.response_request_id(slot.request_id)};
}

void H1Session::complete_slot(Slot& slot) {
    slot.complete = true;
    worker_.metrics().in_flight.dec();
    worker_.observe(slot.record, slot.status, slot.response_bytes, conn_.peer(), slot.aborted);
    drain_slots();
    conn_.schedule_flush();
}

void H1Session::deliver_response(slipstream::detail::PendingResponse& pending, Response&& response) {
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    RequestPipeline(worker_).finish_response(pending, response);  // compression
    std::size_t before = slot->bytes.size();
    int status = response.status;
    if (!encode_response(std::move(response), slot_context(*slot), slot->bytes)) status = 500;
    observe_slot(*slot, before, status);
    complete_slot(*slot);
}

void H1Session::deliver_stream_head(slipstream::detail::PendingResponse& pending, Response&& head) {
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    pending.handler_timer.cancel();
    if (slot->version == h1::Version::kHttp10) {
        slot->keep_alive = false;  // the body is delimited by the close
        slot->close_after = true;
    }
    std::size_t before = slot->bytes.size();
    int status = head.status;
    pending.stream.set_high_water(worker_.options().stream_high_water_bytes);
    // Compression, SSE heartbeats, CORS fields.
    RequestPipeline(worker_).begin_stream(pending, head, response_valid(head));
    bool ok = encode_stream_head(std::move(head), slot_context(*slot), slot->bytes);
    observe_slot(*slot, before, ok ? status : 500);
    if (!ok) {
        complete_slot(*slot);
        return;
    }
    drain_slots();
    conn_.schedule_flush();
    if (conn_.draining() && pending.stream.event_stream_active()) end_event_stream(pending);  // began during the drain
}

void H1Session::deliver_stream_chunk(slipstream::detail::PendingResponse& pending, std::string&& chunk) {
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete || slot->head_only) return;
    std::size_t before = slot->bytes.size();
    chunk = pending.stream.transform(std::move(chunk));  // compressed and flushed when the stream is
    encode_stream_chunk(chunk, slot->version, slot->bytes);
    observe_slot(*slot, before, 0);
    drain_slots();
    update_stream_backlogs();  // before the producer's posted count drops (see Responder::write)
    conn_.schedule_flush();
}

void H1Session::deliver_stream_end(slipstream::detail::PendingResponse& pending, bool aborted) {
    std::string tail = pending.stream.finish(aborted);  // the encoder's last bytes; stops heartbeats
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    std::size_t before = slot->bytes.size();
    if (aborted) {
        slot->close_after = true;  // a truncated body must not look complete
        slot->aborted = true;
    } else if (!slot->head_only) {
        encode_stream_chunk(tail, slot->version, slot->bytes);
        encode_stream_end(slot->version, slot->bytes);
    }
    observe_slot(*slot, before, 0);
    complete_slot(*slot);
}

void H1Session::on_handler_timeout(slipstream::detail::PendingResponse& pending) {
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    pending.cancel();  // the producer's on_cancel runs (a Python task is cancelled, its generator closed)
    worker_.metrics().timeouts.with({"handler"}).inc();
    std::size_t before = slot->bytes.size();
    if (pending.answered.exchange(true)) {
        slot->close_after = true;  // a stream already started: cut it
        slot->aborted = true;
    } else {
        Response timeout = problem_response({504, "the handler did not answer in time"});
        RequestPipeline(worker_).add_cors_fields(pending.request.headers, timeout);
        encode_response(std::move(timeout), slot_context(*slot), slot->bytes);
    }
    observe_slot(*slot, before, 504);
    complete_slot(*slot);
}

void H1Session::end_event_stream(slipstream::detail::PendingResponse& pending) {
    Slot* slot = find_slot(pending);
    if (slot == nullptr || slot->complete) return;
    std::shared_ptr<slipstream::detail::PendingResponse> keep = slot->pending.shared();  // the slot may be popped
    slot->close_after = true;
    keep->ended.store(true);  // the producer's later write() and end() are no-ops
    deliver_stream_end(*keep, false);
    keep->cancel();
}

void H1Session::update_slot_backlogs() {
    std::size_t ahead = conn_.output().size();
    for (Slot& s : slots_) {
        ahead += s.bytes.size();
        if (s.pending && !s.complete) s.pending->stream.set_backlog(ahead);
    }
}

std::size_t H1Session::written_bytes(const Slot& slot) const {
    // Only the front slot's bytes move to the output before it is complete; the unsent rest of it is its tail.
    std::size_t moved = slot.response_bytes - std::min(slot.response_bytes, slot.bytes.size());
    return moved - std::min(moved, conn_.output().size());
}

void H1Session::drain_slots() {
    while (!slots_.empty()) {
        Slot& front = slots_.front();
        conn_.output().take_all(front.bytes);
        if (!front.complete) break;
        if (front.close_after) conn_.set_closing();
        front.pending.reset();
        slots_.pop_front();
    }
}

}  // namespace slipstream::server
