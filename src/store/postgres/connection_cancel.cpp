// Connection: cancelling a statement on purpose or at its deadline, on the server through PQcancel.
#include <algorithm>

#include "base/log.h"
#include "store/postgres/connection_op.h"

namespace slipstream::store::postgres {

bool Connection::cancel(StatementId id) {
    auto it = std::find_if(ops_.begin(), ops_.end(), [id](const auto& op) { return op->id == id; });
    if (it == ops_.end() || (*it)->answered) return false;
    const bool sent = static_cast<std::size_t>(it - ops_.begin()) < in_flight_;
    std::weak_ptr<bool> alive = alive_;
    DbError e;
    e.message = "statement cancelled by the client";
    if (!sent) {
        std::unique_ptr<Op> op = std::move(*it);
        ops_.erase(it);
        deliver(*op, base::Status::cancelled(e.message), e);
        if (alive.expired()) return true;
        if (ops_.empty() && state_ == State::kReady && listener_) listener_(*this);
        return true;
    }
    Op* op = it->get();
    deliver(*op, base::Status::cancelled(e.message), e);
    if (alive.expired() || state_ != State::kReady) return true;
    // The callback may have queued more, never completed this one: it is still in flight, maybe no longer oldest.
    if (ops_.front().get() == op) {
        cancel_on_server(*op, e.message);
    } else {
        op->cancel_pending = true;
    }
    return true;
}
void Connection::on_timer() {
    if (state_ == State::kConnecting) {
        finish_connect(base::Status::timeout("connecting to PostgreSQL timed out"));
        return;
    }
    if (in_flight_ == 0) {
        if (cancels_running_ > 0) {
            break_connection("a cancel request did not finish within " + millis(kCancelGrace), true);
        }
        return;
    }
    Op& op = *ops_.front();
    if (op.answered) {
        if (loop_.now() >= op.give_up || op.phase == Op::Phase::kCopyIn) {
            break_connection("a cancelled statement did not end within " + millis(kCancelGrace), true);
        } else if (cancels_running_ == 0) {
            cancel_on_server(op, "statement still running after a cancel request");  // asked again
        } else {
            op.deadline = std::min(loop_.now() + kCancelRepeat, op.give_up);
            arm_timer();
        }
        return;
    }
    // First expiry: answer the caller now, then ask the server to stop the statement.
    std::weak_ptr<bool> alive = alive_;
    DbError e;
    e.message = "statement timed out after " + millis(op.options.timeout_ns);
    deliver(op, base::Status::timeout(e.message), e);
    if (alive.expired() || state_ != State::kReady) return;
    cancel_on_server(op, e.message);
}
// `op`, the oldest statement in flight, has been answered (timed out or cancelled): ask the server to stop it,
// again every kCancelRepeat while it runs. The connection goes on once it ended and the request was delivered, or
// is closed kCancelGrace after the first request.
void Connection::cancel_on_server(Op& op, const std::string& why) {
    if (op.give_up == 0) op.give_up = loop_.now() + kCancelGrace;
    op.deadline = op.phase == Op::Phase::kCopyIn ? op.give_up : std::min(loop_.now() + kCancelRepeat, op.give_up);
    if (op.phase == Op::Phase::kCopyIn) {
        // feed_copy_in ends the COPY with CopyFail at its next turn; a cancel request could arrive after that
        // and stop the next statement instead. A COPY waiting for its source gets that turn now.
        arm_timer();
        if (op.copy_waiting) {
            loop_.post([alive = std::weak_ptr<bool>(alive_), self = this, id = op.id] {
                if (!alive.expired()) self->resume_copy(id);
            });
        }
        return;
    }
    if (op.phase == Op::Phase::kCopyOut && op.copy_waiting) {
        // A server blocked writing COPY data sees no cancel request: read (and drop) the rest so it can.
        loop_.post([alive = std::weak_ptr<bool>(alive_), self = this, id = op.id] {
            if (!alive.expired()) self->resume_copy(id);
        });
    }
    std::shared_ptr<PGcancel> cancel(PQgetCancel(conn_), [](PGcancel* c) {
        if (c != nullptr) PQfreeCancel(c);
    });
    WorkerPool* workers = options_.cancel_workers;
    bool queued =
        workers != nullptr && cancel != nullptr &&
        workers
            ->submit([cancel, link = cancel_link_, alive = std::weak_ptr<bool>(alive_), self = this](std::size_t) {
                // PQcancel opens its own connection and waits for the server: a worker's job.
                char err[256];
                if (PQcancel(cancel.get(), err, sizeof err) == 0) {
                    base::log_message(base::LogLevel::kWarn, std::string("postgres: cancel failed: ") + err);
                }
                std::lock_guard<std::mutex> lock(link->mutex);
                if (link->loop == nullptr) return;
                link->loop->post([alive, self] {
                    if (!alive.expired()) self->cancel_delivered();
                });
            })
            .is_ok();
    if (!queued) {
        break_connection(why + "; connection closed to stop it", true);
        return;
    }
    ++cancels_running_;
    cancel_deadline_ = op.give_up;
    arm_timer();
}
// A cancel request finished (the server has its signal): statements held back meanwhile may go out.
void Connection::cancel_delivered() {
    --cancels_running_;
    if (state_ != State::kReady || cancels_running_ > 0) return;
    arm_timer();
    pump();
}

}  // namespace slipstream::store::postgres
