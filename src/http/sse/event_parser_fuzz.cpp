// libFuzzer target: the event-stream reader gives the same events, comments and retries whether the input is fed
// whole, split at one position or byte by byte; limits hold.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/sse/event_parser.h"

namespace {

using namespace slipstream::http::sse;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

struct Record final : EventSink {
    std::vector<std::string> seen;
    std::size_t max_data = 0;
    slipstream::base::Status on_event(const ParsedEvent& e) override {
        seen.push_back("E" + std::string(e.type) + '\0' + std::string(e.data) + '\0' + std::string(e.id));
        max_data = std::max(max_data, e.data.size());
        return slipstream::base::Status::ok();
    }
    slipstream::base::Status on_comment(std::string_view text) override {
        seen.push_back("C" + std::string(text));
        return slipstream::base::Status::ok();
    }
    void on_retry(std::uint64_t ms) override { seen.push_back("R" + std::to_string(ms)); }
};

struct Run {
    std::vector<std::string> seen;
    bool failed = false;
    bool dropped = false;
};

Run run(const std::vector<std::string_view>& pieces, const EventParserLimits& limits) {
    EventParser p(limits);
    Record r;
    Run out;
    for (std::string_view piece : pieces) {
        if (!p.feed(piece, r).is_ok()) {
            out.failed = true;
            break;
        }
    }
    if (!out.failed) out.failed = !p.finish(r, &out.dropped).is_ok();
    require(r.max_data <= limits.max_event_bytes);
    out.seen = std::move(r.seen);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    EventParserLimits limits{.max_line_bytes = 8u + data[0], .max_event_bytes = 16u + data[1] * 4u};
    std::string_view in(reinterpret_cast<const char*>(data + 2), size - 2);
    Run whole = run({in}, limits);
    std::size_t split = in.empty() ? 0 : (static_cast<std::size_t>(data[0]) * 131 + data[1]) % (in.size() + 1);
    Run two = run({in.substr(0, split), in.substr(split)}, limits);
    require(two.failed == whole.failed);
    if (!whole.failed) require(two.seen == whole.seen && two.dropped == whole.dropped);
    if (in.size() <= 4096) {
        std::vector<std::string_view> bytes;
        for (std::size_t i = 0; i < in.size(); ++i)
            bytes.push_back(in.substr(i, 1));
        Run each = run(bytes, limits);
        require(each.failed == whole.failed);
        if (!whole.failed) require(each.seen == whole.seen && each.dropped == whole.dropped);
    }
    return 0;
}
