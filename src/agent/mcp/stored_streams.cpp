// StoredStreams: replay from the store, then follow what the stream's producer keeps writing.
#include "agent/mcp/stored_streams.h"

#include <algorithm>
#include <utility>

namespace slipstream::mcp::detail {

void StoredStreams::resume(const std::string& session_id, const std::string& stream, std::uint64_t after,
                           EventStream out, std::function<void(EventStream)> unknown) {
    auto f = std::make_shared<Follower>();
    f->session_id = session_id;
    f->stream = stream;
    f->after = after;
    f->out = std::make_shared<EventStream>(std::move(out));
    f->reading = true;
    std::shared_ptr<StoredStreams> self = shared_from_this();
    // Known when the store holds an event of that stream in that session: the client's id names a stream of its
    // own session (another session's ids find nothing), and a stream whose events expired is unknown too.
    store_->stream_known(
        session_id, stream,
        [self, f, unknown = std::move(unknown)](SessionStore::Outcome outcome, bool known, std::int64_t newest_ms) {
            if (outcome != SessionStore::Outcome::kOk || !known) return unknown(std::move(*f->out));
            f->newest_ms = newest_ms;
            std::vector<std::shared_ptr<Follower>> ended;
            {
                std::lock_guard lock(self->mu_);
                // A second resumption of the same stream replaces the first.
                for (auto& other : self->followers_)
                    if (other->session_id == f->session_id && other->stream == f->stream) ended.push_back(other);
                if (ended.empty() && self->followers_.size() >= self->limits_.max_followed)
                    ended.push_back(self->followers_.front());
                for (auto& e : ended) {
                    e->ended = true;
                    std::erase(self->followers_, e);
                }
                self->followers_.push_back(f);
            }
            for (auto& e : ended)
                e->out->close();
            self->read(f);
        });
}

void StoredStreams::read(const std::shared_ptr<Follower>& f) {
    std::weak_ptr<StoredStreams> weak = weak_from_this();
    store_->read_events(
        f->session_id, f->stream, f->after + 1, limits_.batch,
        [weak, f](SessionStore::Outcome outcome, std::vector<SessionStore::StoredEvent> events) {
            auto self = weak.lock();
            if (self == nullptr) return (void)f->out->close();
            bool over = false;
            bool more = false;
            {
                std::lock_guard lock(self->mu_);
                f->reading = false;
                if (f->ended) return (void)f->out->close();
                if (outcome == SessionStore::Outcome::kOk) {
                    more = events.size() >= self->limits_.batch;
                    over = deliver(*f, events);
                }
                // Nothing written for the TTL: the producer is gone (a crash, a lost call).
                if (!over && events.empty() && wall_ms() - f->newest_ms > std::int64_t{self->limits_.ttl_ms})
                    over = true;
                // A notice that came while this read was out may name an event committed after it ran.
                more = more || std::exchange(f->again, false);
                if (!over && more) f->reading = true;
            }
            if (over) return self->drop(f);
            if (more) self->read(f);
        });
}

bool StoredStreams::deliver(Follower& f, std::vector<SessionStore::StoredEvent>& events) {
    for (SessionStore::StoredEvent& e : events) {
        if (e.seq <= f.after) continue;
        f.after = e.seq;
        f.newest_ms = std::max(f.newest_ms, e.created_ms);
        // An empty final event marks an end without an event kept (cancelled, or too large to keep).
        if (!(e.final && e.data.empty()) && !f.out->send(e.data, {}, f.stream + "-" + std::to_string(e.seq)))
            return true;  // the client left
        if (e.final) return true;
    }
    return f.out->cancelled();
}

void StoredStreams::drop(const std::shared_ptr<Follower>& f) {
    {
        std::lock_guard lock(mu_);
        f->ended = true;
        std::erase(followers_, f);
    }
    f->out->close();
}

void StoredStreams::poll() {
    std::vector<std::shared_ptr<Follower>> due;
    {
        std::lock_guard lock(mu_);
        for (auto& f : followers_) {
            if (f->ended) continue;
            if (f->reading) {
                f->again = true;  // the read out may have run before what this notice announces
                continue;
            }
            f->reading = true;
            due.push_back(f);
        }
    }
    for (auto& f : due)
        read(f);
}

void StoredStreams::end_session(const std::string& session_id) {
    std::vector<std::shared_ptr<Follower>> ended;
    {
        std::lock_guard lock(mu_);
        for (auto& f : followers_)
            if (f->session_id == session_id) {
                f->ended = true;
                ended.push_back(f);
            }
        std::erase_if(followers_, [](const auto& f) { return f->ended; });
    }
    for (auto& f : ended)
        f->out->close();
}

bool StoredStreams::empty() const {
    std::lock_guard lock(mu_);
    return followers_.empty();
}

}  // namespace slipstream::mcp::detail
