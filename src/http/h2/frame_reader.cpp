// FrameReader: the preface compared as it arrives, then frames sliced from the input without copying when whole.
#include "http/h2/frame_reader.h"

#include <algorithm>

namespace slipstream::http::h2::detail {

FrameReader::Step FrameReader::next(std::string_view& input, FrameHeader& header, std::string_view& payload) {
    if (partial_handed_) {
        partial_.clear();
        partial_handed_ = false;
    }
    if (preface_seen_ < kClientPreface.size()) {
        std::size_t n = std::min(kClientPreface.size() - preface_seen_, input.size());
        if (input.substr(0, n) != kClientPreface.substr(preface_seen_, n)) return Step::kBadPreface;
        preface_seen_ += n;
        input.remove_prefix(n);
        if (preface_seen_ < kClientPreface.size()) return Step::kNeedMore;
    }
    if (!partial_.empty()) return from_partial(input, header, payload);
    if (input.size() < kFrameHeaderSize) {
        partial_.assign(input);
        input = {};
        return Step::kNeedMore;
    }
    header = parse_frame_header(input.data());
    if (header.length > max_frame_size_) return Step::kTooLarge;
    if (input.size() < kFrameHeaderSize + header.length) {
        partial_.assign(input);
        input = {};
        return Step::kNeedMore;
    }
    payload = input.substr(kFrameHeaderSize, header.length);
    input.remove_prefix(kFrameHeaderSize + header.length);
    return Step::kFrame;
}

FrameReader::Step FrameReader::from_partial(std::string_view& input, FrameHeader& header, std::string_view& payload) {
    if (partial_.size() < kFrameHeaderSize) {
        std::size_t take = std::min(kFrameHeaderSize - partial_.size(), input.size());
        partial_.append(input.substr(0, take));
        input.remove_prefix(take);
        if (partial_.size() < kFrameHeaderSize) return Step::kNeedMore;
    }
    header = parse_frame_header(partial_.data());
    if (header.length > max_frame_size_) return Step::kTooLarge;
    std::size_t whole = kFrameHeaderSize + header.length;
    std::size_t take = std::min(whole - partial_.size(), input.size());
    partial_.append(input.substr(0, take));
    input.remove_prefix(take);
    if (partial_.size() < whole) return Step::kNeedMore;
    payload = std::string_view(partial_).substr(kFrameHeaderSize);
    partial_handed_ = true;
    return Step::kFrame;
}

}  // namespace slipstream::http::h2::detail
