// StreamRecorder: ordered, bounded writes of a stream's events.
#include "agent/mcp/stream_recorder.h"

namespace slipstream::mcp::detail {

void StreamRecorder::record(std::uint64_t seq, const std::string& data, bool final) {
    Batch batch;
    {
        std::lock_guard lock(mu_);
        if (data.size() > limits_.max_bytes || limits_.max_events == 0) {
            if (final) queued_.push_back(SessionStore::StoredEvent{seq, {}, true, 0});
        } else {
            queued_.push_back(SessionStore::StoredEvent{seq, data, final, 0});
            kept_.emplace_back(seq, data.size());
            kept_bytes_ += data.size();
            while (kept_.size() > limits_.max_events || kept_bytes_ > limits_.max_bytes) {
                drop_through_ = kept_.front().first;
                kept_bytes_ -= kept_.front().second;
                kept_.pop_front();
            }
        }
        if (writing_ || !take_locked(batch)) return;
    }
    write(std::move(batch));
}

bool StreamRecorder::take_locked(Batch& batch) {
    if (queued_.empty() && drop_through_ == 0) return false;
    // Events queued but already past the bounds are not written at all.
    batch.events.reserve(queued_.size());
    for (auto& e : queued_)
        if (drop_through_ == 0 || e.seq > drop_through_ || e.final) batch.events.push_back(std::move(e));
    queued_.clear();
    batch.drop_through = drop_through_;
    drop_through_ = 0;
    writing_ = true;
    return true;
}

void StreamRecorder::write(Batch batch) {
    // The write holds the recorder: what its stream queued meanwhile (the answer) is written after it even when the
    // stream itself is gone.
    store_->append_events(session_id_, stream_, std::move(batch.events), batch.drop_through,
                          [self = shared_from_this()](SessionStore::Outcome) {
                              Batch next;
                              {
                                  std::lock_guard lock(self->mu_);
                                  self->writing_ = false;
                                  if (!self->take_locked(next)) return;
                              }
                              self->write(std::move(next));
                          });
}

}  // namespace slipstream::mcp::detail
