// MessageReader: reassembly, UTF-8, inflation and control-frame rules over FrameParser steps.
#include "http/ws/message_reader.h"

#include "http/ws/close_code.h"
#include "http/ws/opcode.h"

namespace slipstream::http::ws {
namespace {
// A buffer that held a large message is released, so an idle connection keeps little memory.
constexpr std::size_t kKeepCapacity = 64 * 1024;

MessageReader::Event need_more(std::size_t consumed) {
    MessageReader::Event e;
    e.consumed = consumed;
    return e;
}
}  // namespace

MessageReader::MessageReader(MessageReaderOptions options)
    : options_(options), parser_(FrameParserOptions{options.expect_masked, options.deflate, options.max_frame_bytes}) {
    if (options_.deflate) inflater_ = std::make_unique<Inflater>();
}

MessageReader::~MessageReader() = default;

MessageReader::Event MessageReader::fail(std::uint16_t code, std::string_view reason, std::size_t consumed) {
    failed_ = true;
    error_reason_ = reason;
    Event e;
    e.kind = Kind::kError;
    e.consumed = consumed;
    e.close_code = code;
    e.data = reason;
    return e;
}

MessageReader::Event MessageReader::read(std::string_view data) {
    if (failed_) return fail(kCloseProtocolError, error_reason_, data.size());
    if (clear_message_) {
        clear_message_ = false;
        if (message_.capacity() > kKeepCapacity) {
            std::string().swap(message_);
        } else {
            message_.clear();
        }
    }
    std::size_t used = 0;
    for (;;) {
        FrameParser::Step st = parser_.next(data.substr(used));
        used += st.consumed;
        Event e;
        e.consumed = used;
        switch (st.event) {
            case FrameParser::Event::kNeedMore:
                return e;
            case FrameParser::Event::kError:
                return fail(st.close_code, st.reason, used);
            case FrameParser::Event::kHeader:
                e = on_header(used);
                break;
            case FrameParser::Event::kPayload:
                e = on_payload(st);
                e.consumed = used;
                break;
        }
        if (e.kind != Kind::kNeedMore) return e;
        if (st.frame_done) {
            e = finish_frame(used);
            if (e.kind != Kind::kNeedMore) return e;
        }
    }
}

MessageReader::Event MessageReader::on_header(std::size_t consumed) {
    const FrameHeader& h = parser_.header();
    frame_is_control_ = is_control_opcode(h.opcode);
    if (frame_is_control_) {
        if (h.rsv1) return fail(kCloseProtocolError, "RSV1 set on a control frame", consumed);
        control_.clear();
        return need_more(consumed);
    }
    if (h.opcode == static_cast<std::uint8_t>(Opcode::kContinuation)) {
        if (message_opcode_ == 0) return fail(kCloseProtocolError, "continuation frame without a message", consumed);
        if (h.rsv1) return fail(kCloseProtocolError, "RSV1 set on a continuation frame", consumed);
    } else {
        if (message_opcode_ != 0) return fail(kCloseProtocolError, "new message inside a fragmented one", consumed);
        message_opcode_ = h.opcode;
        message_compressed_ = h.rsv1;
        utf8_.reset();
        message_.clear();
    }
    // An uncompressed message's size is known from the declared lengths: refuse before reading it.
    if (!message_compressed_ && message_.size() + h.length > options_.max_message_bytes) {
        return fail(kCloseMessageTooBig, "message too large", consumed);
    }
    return need_more(consumed);
}

MessageReader::Event MessageReader::on_payload(const FrameParser::Step& step) {
    const FrameHeader& h = parser_.header();
    std::string_view raw = step.payload;
    if (frame_is_control_) {
        std::size_t old = control_.size();
        control_.resize(old + raw.size());
        apply_mask(control_.data() + old, raw.data(), raw.size(), h.mask, step.offset);
        return Event{};
    }
    std::size_t old = message_.size();
    if (message_compressed_) {
        scratch_.resize(raw.size());
        if (h.masked) {
            apply_mask(scratch_.data(), raw.data(), raw.size(), h.mask, step.offset);
        } else {
            scratch_.assign(raw);
        }
        base::Status s = inflater_->feed(scratch_, message_, options_.max_message_bytes);
        if (s.is_out_of_range()) return fail(kCloseMessageTooBig, "message too large", 0);
        if (!s.is_ok()) return fail(kCloseInvalidPayload, "invalid compressed data", 0);
    } else {
        message_.resize(old + raw.size());
        if (h.masked) {
            apply_mask(message_.data() + old, raw.data(), raw.size(), h.mask, step.offset);
        } else {
            message_.replace(old, raw.size(), raw);
        }
    }
    if (message_opcode_ == static_cast<std::uint8_t>(Opcode::kText) &&
        !utf8_.feed(std::string_view(message_).substr(old))) {
        return fail(kCloseInvalidPayload, "text message is not valid UTF-8", 0);
    }
    return Event{};
}

MessageReader::Event MessageReader::finish_frame(std::size_t consumed) {
    const FrameHeader& h = parser_.header();
    Event e;
    e.consumed = consumed;
    if (frame_is_control_) {
        e.data = control_;
        switch (static_cast<Opcode>(h.opcode)) {
            case Opcode::kPing:
                e.kind = Kind::kPing;
                return e;
            case Opcode::kPong:
                e.kind = Kind::kPong;
                return e;
            default: {
                ClosePayload cp;
                std::uint16_t bad = parse_close_payload(control_, &cp);
                if (bad != 0) {
                    return fail(bad, bad == kCloseInvalidPayload ? "close reason is not valid UTF-8" : "invalid close",
                                consumed);
                }
                e.kind = Kind::kClose;
                e.close_code = cp.code;
                e.data = cp.reason;
                return e;
            }
        }
    }
    if (!h.fin) return e;  // more fragments follow
    bool text = message_opcode_ == static_cast<std::uint8_t>(Opcode::kText);
    if (message_compressed_) {
        std::size_t old = message_.size();
        base::Status s =
            inflater_->end_message(message_, options_.max_message_bytes, options_.reset_inflate_each_message);
        if (s.is_out_of_range()) return fail(kCloseMessageTooBig, "message too large", consumed);
        if (!s.is_ok()) return fail(kCloseInvalidPayload, "invalid compressed data", consumed);
        if (text && !utf8_.feed(std::string_view(message_).substr(old))) {
            return fail(kCloseInvalidPayload, "text message is not valid UTF-8", consumed);
        }
    }
    if (text && !utf8_.complete()) return fail(kCloseInvalidPayload, "text message is not valid UTF-8", consumed);
    e.kind = text ? Kind::kText : Kind::kBinary;
    e.data = message_;
    e.compressed = message_compressed_;
    message_opcode_ = 0;
    message_compressed_ = false;
    clear_message_ = true;
    return e;
}

}  // namespace slipstream::http::ws
