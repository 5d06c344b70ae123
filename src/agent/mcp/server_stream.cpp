// ServerStream: push, replay and the live stream.
#include "agent/mcp/server_stream.h"

#include <charconv>

namespace slipstream::mcp::detail {

void ServerStream::push(const std::string& message) {
    std::lock_guard lock(mu_);
    if (closed_) return;
    const std::uint64_t id = next_id_++;
    if (capacity_ != 0) {
        if (events_.size() >= capacity_) events_.pop_front();
        events_.emplace_back(id, message);
    }
    if (live_ && !live_->send(message, {}, std::to_string(id))) live_.reset();
}

void ServerStream::attach(EventStream stream, std::optional<std::string_view> last_event_id) {
    std::lock_guard lock(mu_);
    if (closed_) {
        stream.close();
        return;
    }
    if (last_event_id) {
        std::uint64_t last = 0;
        const std::string_view text = *last_event_id;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), last);
        const bool ours = ec == std::errc() && end == text.data() + text.size() && last < next_id_;
        for (const auto& [id, message] : events_)
            if (ours && id > last && !stream.send(message, {}, std::to_string(id))) return;
    }
    if (live_) live_->close();
    live_ = std::move(stream);
}

void ServerStream::close(bool forever) {
    std::lock_guard lock(mu_);
    if (live_) live_->close();
    live_.reset();
    if (forever) {
        closed_ = true;
        events_.clear();
    }
}

std::string ServerStream::last_id() const {
    std::lock_guard lock(mu_);
    return std::to_string(next_id_ - 1);
}

bool ServerStream::closed() const {
    std::lock_guard lock(mu_);
    return closed_;
}

bool ServerStream::live() const {
    std::lock_guard lock(mu_);
    return live_.has_value() && !live_->cancelled();
}

}  // namespace slipstream::mcp::detail
