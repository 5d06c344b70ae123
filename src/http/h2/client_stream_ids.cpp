// ClientStreamIds: two small rings (skipped ranges, recent resets) behind the idle/closed distinction.
#include "http/h2/client_stream_ids.h"

namespace slipstream::http::h2::detail {

void ClientStreamIds::open(std::int32_t id) {
    std::int32_t first_skipped = last_ == 0 ? 1 : last_ + 2;
    if (id > first_skipped) {
        skipped_[skipped_next_] = {first_skipped, id - 2};
        skipped_next_ = (skipped_next_ + 1) % kSkippedRanges;
    }
    last_ = id;
}

void ClientStreamIds::note_reset(std::int32_t id) {
    resets_[resets_next_] = id;
    resets_next_ = (resets_next_ + 1) % kResets;
}

void ClientStreamIds::note_client_reset(std::int32_t id) {
    client_resets_[client_resets_next_] = id;
    client_resets_next_ = (client_resets_next_ + 1) % kResets;
}

ClientStreamIds::Kind ClientStreamIds::classify(std::int32_t id) const {
    if (id > last_) return Kind::kIdle;
    for (const auto& [first, last] : skipped_)
        if (id >= first && id <= last && first > 0) return Kind::kSkipped;
    for (std::int32_t r : resets_)
        if (r == id) return Kind::kResetByUs;
    for (std::int32_t r : client_resets_)
        if (r == id) return Kind::kResetByClient;
    return Kind::kClosed;
}

}  // namespace slipstream::http::h2::detail
