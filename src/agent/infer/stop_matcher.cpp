// StopMatcher: finds stop strings in streamed text and keeps back possible stop prefixes and split characters.
#include "agent/infer/stop_matcher.h"

#include <algorithm>

namespace slipstream::agent::infer {
namespace {

// Length of the UTF-8 sequence a lead byte starts; 0 for a continuation byte or a byte never valid in UTF-8.
size_t utf8_sequence_length(unsigned char c) {
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return 2;
    if (c >= 0xE0 && c <= 0xEF) return 3;
    if (c >= 0xF0 && c <= 0xF4) return 4;
    return 0;
}

// Bytes at the end of `text` that begin a multi-byte character the text does not finish (0..3). Invalid bytes are
// not held: waiting cannot make them valid.
size_t incomplete_tail(std::string_view text) {
    const size_t n = text.size();
    for (size_t back = 1; back <= 3 && back <= n; ++back) {
        const auto c = static_cast<unsigned char>(text[n - back]);
        if ((c & 0xC0) == 0x80) continue;  // continuation byte: look further back for its lead
        const size_t need = utf8_sequence_length(c);
        return need > back ? back : 0;
    }
    return 0;
}

}  // namespace

base::Result<StopMatcher> StopMatcher::create(std::vector<std::string> stops) {
    if (stops.size() > kMaxStops) {
        return base::Status::invalid_argument("at most " + std::to_string(kMaxStops) + " stop sequences are allowed");
    }
    for (const std::string& s : stops) {
        if (s.empty()) return base::Status::invalid_argument("a stop sequence is empty");
        if (s.size() > kMaxStopBytes) {
            return base::Status::invalid_argument("a stop sequence is longer than " + std::to_string(kMaxStopBytes) +
                                                  " bytes");
        }
    }
    return StopMatcher(std::move(stops));
}

size_t StopMatcher::partial_stop_length() const {
    const std::string_view held = held_;
    size_t best = 0;
    for (const std::string& s : stops_) {
        for (size_t len = std::min(held.size(), s.size() - 1); len > best; --len) {
            if (held.ends_with(std::string_view(s).substr(0, len))) {
                best = len;
                break;
            }
        }
    }
    return best;
}

StopMatcher::Output StopMatcher::feed(std::string_view piece) {
    Output out;
    if (stopped_) {
        out.stopped = true;
        return out;
    }
    held_.append(piece);

    // A full stop string: held_ had none before this piece, so the earliest match is the first in the text.
    size_t first = std::string::npos;
    for (size_t i = 0; i < stops_.size(); ++i) {
        const size_t at = held_.find(stops_[i]);
        if (at < first) {
            first = at;
            matched_ = static_cast<int>(i);
        }
    }
    if (first != std::string::npos) {
        held_.resize(first);
        out.emit = finish();
        stopped_ = true;
        out.stopped = true;
        return out;
    }

    // Emit all but a possible stop prefix and a split character.
    size_t keep = partial_stop_length();
    keep += incomplete_tail(std::string_view(held_).substr(0, held_.size() - keep));
    out.emit = held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return out;
}

std::string StopMatcher::finish() {
    if (stopped_) return {};
    std::string out = std::move(held_);
    held_.clear();
    const size_t tail = incomplete_tail(out);
    if (tail > 0) {
        out.resize(out.size() - tail);
        out.append("\xEF\xBF\xBD");  // U+FFFD for the unfinished character
    }
    return out;
}

}  // namespace slipstream::agent::infer
