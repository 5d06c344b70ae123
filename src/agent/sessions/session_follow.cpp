// follow_events(): a Follower per stream, woken by the store's SessionChanges; one read in flight at a time.
#include "agent/sessions/session_follow.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <utility>

#include "agent/sessions/session_json.h"
#include "agent/sessions/session_problem.h"
#include "slipstream/sse.h"

namespace slipstream::agent::sessions {

namespace {

// One followed stream. Reads are serialised by `reading`: a wake during a read sets `again`, and the read that
// ends starts the next, so events go out in seq order, each once. The lock guards the stream and the cursor.
class Follower : public std::enable_shared_from_this<Follower> {
  public:
    Follower(std::shared_ptr<SessionStore> store, std::string principal, std::string id, std::int64_t after,
             std::shared_ptr<Responder> responder, FollowOptions options)
        : store_(store),
          principal_(std::move(principal)),
          id_(std::move(id)),
          options_(options),
          cursor_(after),
          responder_(std::move(responder)) {}

    void start() {
        // Subscribed before the first read: an append committed meanwhile wakes it, so none is missed. The
        // subscription holds the follower until end_locked() unsubscribes.
        // Then counted as a follower in the store (PostgreSQL: other processes' appends NOTIFY from then on)
        // before the first read.
        auto self = shared_from_this();
        std::shared_ptr<SessionStore> store = store_.lock();
        token_ = store->changes().subscribe(id_, [self] { self->wake(); });
        counted_ = true;
        store->follow_started(principal_, id_, [self] { self->wake(); });
    }

  private:
    void wake() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (ended_) return;
            if (reading_) {
                again_ = true;
                return;
            }
            if (left_.load()) {
                end_locked();
                return;
            }
            reading_ = true;
        }
        read();
    }

    void read() {
        std::int64_t after = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            after = cursor_;
            again_ = false;
        }
        auto self = shared_from_this();
        std::shared_ptr<SessionStore> store = store_.lock();
        if (!store) {  // closing
            std::lock_guard<std::mutex> lock(mutex_);
            return end_locked();
        }
        store->events(principal_, id_, after, options_.page,
                      [self](SessionResult<EventPage> page) { self->on_page(std::move(page)); });
    }

    void on_page(SessionResult<EventPage> page) {
        bool more = false;
        bool opened = false;
        bool full = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (ended_) return;
            if (left_.load()) return end_locked();
            if (!page.is_ok()) {
                // Before the stream: the answer is the problem (403, 404...). After: the session was deleted or
                // expired, or the store failed; the stream ends (a client resumes with Last-Event-ID).
                if (!stream_) responder_->send(problem_for(page.error()));
                return end_locked();
            }
            if (!stream_) {
                stream_.emplace(std::move(*responder_));
                responder_.reset();
                opened = true;
            }
            for (const EventRecord& e : page.value().events) {
                if (!stream_->send(event_json(e), {}, std::to_string(e.seq))) return end_locked();
                cursor_ = e.seq;
            }
            more = again_ || page.value().events.size() >= options_.page;
            // A client slower than the log: the next read waits until its queue drained (flow control).
            full = more && !stream_->writable();
            if (!more && !opened) reading_ = false;
        }
        if (opened) {
            // Outside the lock (the callback runs at once when the client left already); no other thread uses
            // the stream meanwhile, since `reading_` is still set. The callback runs on the I/O thread and must
            // not use the stream: it marks the follower, which ends at its next wake (an append, the periodic
            // re-check).
            std::weak_ptr<Follower> weak = weak_from_this();
            stream_->on_cancel([weak] {
                if (std::shared_ptr<Follower> f = weak.lock()) f->left_.store(true);
            });
            if (!more) {
                std::lock_guard<std::mutex> lock(mutex_);
                more = again_;
                if (!more) reading_ = false;
            }
        }
        if (full) {
            // Outside the lock (the callback runs at once when the queue drained already); `reading_` is still
            // set, so no other thread uses the stream. It also runs when the client left: the read then ends it.
            auto self = shared_from_this();
            stream_->on_writable([self] { self->read(); });
            return;
        }
        if (more) read();
    }

    void end_locked() {
        if (ended_) return;
        ended_ = true;
        reading_ = false;
        // Callers hold a reference of their own: the follower is not destroyed here.
        if (std::shared_ptr<SessionStore> store = store_.lock()) {
            store->changes().unsubscribe(id_, token_);
            if (counted_) store->follow_ended(principal_, id_);
        }
        if (stream_) stream_->close();
        stream_.reset();
        responder_.reset();
    }

    std::weak_ptr<SessionStore> store_;  // the store holds its followers (SessionChanges), not the other way
    const std::string principal_;
    const std::string id_;
    const FollowOptions options_;
    std::mutex mutex_;
    std::int64_t cursor_;
    std::shared_ptr<Responder> responder_;  // until the stream opens
    std::optional<EventStream> stream_;
    std::uint64_t token_ = 0;
    bool counted_ = false;  // follow_started() was called: end_locked() calls follow_ended()
    bool reading_ = false;
    bool again_ = false;
    bool ended_ = false;
    std::atomic<bool> left_{false};  // the client left (set by the I/O thread)
};

}  // namespace

void follow_events(std::shared_ptr<SessionStore> store, std::string principal, std::string id, std::int64_t after,
                   std::shared_ptr<Responder> responder, FollowOptions options) {
    auto follower = std::make_shared<Follower>(std::move(store), std::move(principal), std::move(id), after,
                                               std::move(responder), options);
    follower->start();
}

}  // namespace slipstream::agent::sessions
