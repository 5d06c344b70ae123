// Responder: posts an asynchronous handler's answer to the connection's loop.
#include "slipstream/responder.h"

#include <algorithm>

#include "server/conn/pending_response.h"
#include "server/core/problem.h"

namespace slipstream {

using detail::LoopRef;
using detail::PendingResponse;

Responder::Responder(std::shared_ptr<PendingResponse> pending) : pending_(std::move(pending)) {}
Responder::Responder(Responder&&) noexcept = default;
Responder& Responder::operator=(Responder&& other) noexcept {
    if (this != &other) {
        this->~Responder();
        new (this) Responder(std::move(other));
    }
    return *this;
}

Responder::~Responder() {
    if (!pending_) return;
    auto p = std::move(pending_);
    if (!p->answered.exchange(true)) {
        // Dropped without an answer: the client gets a 500 rather than waiting for the handler timeout.
        Response r(500);
        r.body = server::problem_body({500, "the handler did not answer"});
        r.content_type = std::string(server::kProblemContentType);
        p->loop->post([p, r = std::move(r)]() mutable {
            p->ended.store(true);
            if (server::ResponseSink* sink = p->sink()) sink->deliver_response(*p, std::move(r));
        });
    } else if (!p->ended.exchange(true)) {
        p->loop->post([p] {
            if (server::ResponseSink* sink = p->sink()) sink->deliver_stream_end(*p, true);
        });
    }
}

bool Responder::send(Response response) {
    if (!pending_ || pending_->answered.exchange(true)) return false;
    pending_->ended.store(true);
    if (pending_->cancelled.load()) return false;
    auto p = pending_;
    return p->loop->post([p, r = std::move(response)]() mutable {
        if (server::ResponseSink* sink = p->sink()) sink->deliver_response(*p, std::move(r));
    });
}

void Responder::send_all(std::vector<std::pair<Responder, Response>>& replies) {
    using Answer = std::pair<std::shared_ptr<PendingResponse>, Response>;
    // Grouped by loop, in order (an executor answers for one or a few I/O threads: a linear search).
    std::vector<std::pair<LoopRef*, std::vector<Answer>>> groups;
    for (auto& [responder, response] : replies) {
        std::shared_ptr<PendingResponse> p = std::move(responder.pending_);
        if (!p || p->answered.exchange(true)) continue;
        p->ended.store(true);
        if (p->cancelled.load()) continue;
        LoopRef* loop = p->loop.get();
        auto group = std::find_if(groups.begin(), groups.end(), [loop](const auto& g) { return g.first == loop; });
        if (group == groups.end()) group = groups.insert(groups.end(), {loop, {}});
        group->second.emplace_back(std::move(p), std::move(response));
    }
    replies.clear();
    for (auto& [loop, answers] : groups) {
        std::shared_ptr<LoopRef> ref = answers.front().first->loop;
        ref->post([answers = std::move(answers)]() mutable {
            for (auto& [p, r] : answers)
                if (server::ResponseSink* sink = p->sink()) sink->deliver_response(*p, std::move(r));
        });
    }
}

bool Responder::start_stream(Response head) {
    if (!pending_ || pending_->answered.exchange(true)) return false;
    if (pending_->cancelled.load()) return false;
    auto p = pending_;
    return p->loop->post([p, r = std::move(head)]() mutable {
        if (server::ResponseSink* sink = p->sink()) sink->deliver_stream_head(*p, std::move(r));
    });
}

bool Responder::write(std::string_view chunk) {
    if (!pending_ || !pending_->answered.load() || pending_->ended.load() || pending_->cancelled.load()) return false;
    auto p = pending_;
    p->stream.posted(chunk.size());
    return p->loop->post([p, c = std::string(chunk)]() mutable {
        std::size_t n = c.size();
        if (server::ResponseSink* sink = p->sink()) sink->deliver_stream_chunk(*p, std::move(c));
        p->stream.delivered(n);  // after the connection counted it in its backlog
    });
}

bool Responder::writable() const {
    return !pending_ || pending_->stream.writable();
}

std::size_t Responder::queued() const {
    return pending_ ? pending_->stream.queued() : 0;
}

void Responder::on_writable(std::function<void()> fn) {
    if (pending_) {
        pending_->stream.on_writable(std::move(fn));
    } else if (fn) {
        fn();
    }
}

bool Responder::end() {
    if (!pending_ || !pending_->answered.load() || pending_->ended.exchange(true)) return false;
    auto p = pending_;
    return p->loop->post([p] {
        if (server::ResponseSink* sink = p->sink()) sink->deliver_stream_end(*p, false);
    });
}

bool Responder::cancelled() const {
    return !pending_ || pending_->cancelled.load();
}

void Responder::on_cancel(std::function<void()> fn) {
    if (pending_) pending_->stream.on_cancel(std::move(fn));
}

}  // namespace slipstream
