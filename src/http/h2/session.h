// ServerSession: an HTTP/2 server connection's protocol engine (RFC 9113): bytes in, request events out, frames out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "http/h2/client_stream_ids.h"
#include "http/h2/error_code.h"
#include "http/h2/frame.h"
#include "http/h2/frame_reader.h"
#include "http/h2/hpack/hpack_decoder.h"
#include "http/h2/hpack/hpack_encoder.h"
#include "http/h2/receive_window.h"
#include "http/h2/session_config.h"
#include "http/h2/session_stats.h"
#include "http/h2/stream.h"
#include "http/h2/stream_table.h"
#include "http/h2/token_bucket.h"
#include "http/h2/write_queue.h"

namespace slipstream::http::h2 {

using StreamId = std::int32_t;

/// A header field as views; names of received fields are lowercase (HTTP/2 requires it).
struct HeaderField {
    std::string_view name;
    std::string_view value;
};

/// One complete request. Views are valid during SessionHandler::on_request only.
struct RequestHead {
    std::string_view method;
    std::string_view scheme;
    std::string_view authority;
    std::string_view path;  // ":path": path and query
    /// ":protocol" of an extended CONNECT (RFC 8441, e.g. "websocket"); empty otherwise. Such a request is a
    /// tunnel: it is delivered at the end of its headers, and its DATA goes to SessionHandler::on_stream_data.
    std::string_view protocol;
    std::span<const HeaderField> headers;
    std::string_view body;
    /// Non-zero when a limit refused the request (413 body too large, 431 header list too large): answer
    /// with this status without running a handler.
    int error_status = 0;
};

/// A response body read on demand (a file region) instead of held in memory: the session asks for the next
/// bytes as the peer's flow-control window allows, one DATA frame's worth (at most 16 KiB by default) at a time.
class BodySource {
  public:
    virtual ~BodySource() = default;
    /// Fills the start of `buf` with the body's next bytes; returns how many (at least 1 while bytes remain).
    /// An error, or 0 before the end, resets the stream (INTERNAL_ERROR): its body cannot be completed.
    virtual base::Result<std::size_t> read(std::span<char> buf) = 0;
};

/// What the session tells its owner. Called from inside receive() (and, for on_stream_reset and
/// on_stream_closed, from send(), when the frame that closes the stream is handed out; never from reset(),
/// end() or the other calls the owner makes). The handler may call the session's respond/write/end/reset
/// methods from these callbacks.
class SessionHandler {
  public:
    virtual void on_request(StreamId id, const RequestHead& request) = 0;
    /// A stream whose request was delivered closed before its response ended (client reset, stream error,
    /// connection going away): stop producing for it.
    virtual void on_stream_reset(StreamId id) = 0;

    // Tunnels (RequestHead::protocol set). The session advertises SETTINGS_ENABLE_CONNECT_PROTOCOL.
    /// The next bytes of a tunnel's DATA, in order. They stay counted against the stream's and the
    /// connection's receive windows until ServerSession::consume() returns them (the owner's backpressure).
    virtual void on_stream_data(StreamId id, std::string_view data) = 0;
    /// The client ended its side of a tunnel (END_STREAM); the stream stays open for the answer.
    virtual void on_stream_end(StreamId id) = 0;
    /// A tunnel whose answer ended (END_STREAM sent) closed. (One closed before that gets on_stream_reset.)
    virtual void on_stream_closed(StreamId id) = 0;

  protected:
    ~SessionHandler() = default;
};

/// One HTTP/2 server connection's protocol state. Never touches a socket: the owner feeds received bytes
/// to receive() and writes what send() produces. Protocol errors are answered by the session itself
/// (RST_STREAM or GOAWAY with the right code, per RFC 9113); the owner closes the connection once
/// done() says so and the output is written. Not thread-safe: the connection's loop thread only.
class ServerSession final : private HpackFieldSink {
  public:
    /// Builds the session and queues the server preface (SETTINGS). Error: kInternal (out of memory).
    static base::Result<std::unique_ptr<ServerSession>> create(const SessionConfig& config, SessionHandler& handler);
    ~ServerSession();
    ServerSession(const ServerSession&) = delete;
    ServerSession& operator=(const ServerSession&) = delete;

    /// Processes received bytes (the client preface first). On a fatal error the session queues GOAWAY
    /// and returns the reason: kResourceExhausted for floods (ENHANCE_YOUR_CALM), kInvalidArgument for a bad
    /// preface or protocol violation. Keep calling send() to get the GOAWAY out, then close.
    base::Status receive(std::string_view bytes, base::MonoNanos now);
    /// Appends queued frames to `out` until nothing is queued or `out` holds at least `limit` bytes.
    /// Returns the number of bytes appended.
    std::size_t send(std::string& out, std::size_t limit);
    /// True when frames are queued (or a stream has data ready within its flow-control window).
    bool want_write() const;
    /// True once the connection is finished: GOAWAY sent or received and no stream left, or a fatal error.
    bool done() const;

    // Answers (stream ids from on_request). Errors: kNotFound when the stream is gone (reset, closed).
    /// Sends a complete response. `headers` names must be valid; they are lowercased here.
    base::Status respond(StreamId id, int status, std::span<const HeaderField> headers, std::string body);
    /// Sends a complete response whose `length` body bytes (> 0) come from `body` while they are sent.
    base::Status respond(StreamId id, int status, std::span<const HeaderField> headers,
                         std::unique_ptr<BodySource> body, std::uint64_t length);
    /// Sends the head of a response whose body follows through write() and end().
    base::Status start_stream(StreamId id, int status, std::span<const HeaderField> headers);
    base::Status write(StreamId id, std::string_view data);
    base::Status end(StreamId id);
    /// Body bytes handed to write()/respond() and not yet framed into DATA frames (those waiting for the
    /// peer's flow-control window included); 0 for an unknown stream.
    std::size_t queued_bytes(StreamId id) const;
    /// Body bytes of the stream framed into DATA frames so far (handed to send()'s output); 0 when unknown.
    /// During SessionHandler::on_stream_reset the closing stream is still known.
    std::size_t body_bytes_sent(StreamId id) const;
    /// Resets a stream (e.g. an aborted stream, a handler timeout mid-stream).
    void reset(StreamId id, ErrorCode code);
    /// A tunnel's owner processed `n` bytes given to on_stream_data: they reopen the stream's and the
    /// connection's windows (WINDOW_UPDATE). Bytes never returned are returned to the connection when the
    /// stream closes. No-op for an unknown stream.
    void consume(StreamId id, std::size_t n);

    /// HTTP/1.1 Upgrade to h2c (RFC 7540 §3.2): applies the client's HTTP2-Settings value (base64url) and
    /// serves `request` (its body complete) as stream 1, half-closed: on_request is called from here. Field
    /// names may be in any case (lowered here); connection-specific fields (Connection, Upgrade,
    /// HTTP2-Settings, Keep-Alive, Proxy-Connection, Transfer-Encoding, TE) are dropped. Call right after
    /// create(), before any receive(). Error kInvalidArgument: a bad HTTP2-Settings value (nothing changed;
    /// the caller may go on with HTTP/1.1).
    base::Status upgrade(std::string_view http2_settings, const RequestHead& request);

    /// Streams that closed at the protocol level while the owner still works for them (a handler that runs on
    /// after the client reset its stream). They count toward SETTINGS_MAX_CONCURRENT_STREAMS until the owner
    /// lowers the number: a new stream past the limit is refused (RST_STREAM REFUSED_STREAM), and more such
    /// refusals than the limit, before the number drops to 0, end the connection (GOAWAY ENHANCE_YOUR_CALM).
    /// The owner may call it from on_stream_reset.
    void set_held_streams(std::size_t n) {
        held_ = n;
        if (n == 0) refused_held_ = 0;
    }
    /// Resets (RST_STREAM CANCEL) every stream whose response bytes wait for the peer's flow-control window
    /// (the stream's or the connection's) and waited at the previous call too, with no byte framed for it in
    /// between; returns how many. The owner calls it every write timeout while streams are active, so a stream
    /// stalled by a client that never opens its window is reset within one to two timeouts and its buffers freed.
    std::size_t reset_stalled();

    /// Graceful shutdown: GOAWAY(NO_ERROR) with the last stream processed; open streams finish.
    void shutdown();
    /// Immediate shutdown with `code`: GOAWAY, and done() once it is sent.
    void terminate(ErrorCode code);

    /// Streams that delivered a request and have not finished their response.
    std::size_t active_streams() const { return active_; }
    /// True while some stream's request (headers or body) is still arriving.
    bool receiving() const { return receiving_ > 0; }
    /// The code of the GOAWAY this session sent for an error, or kNoError.
    ErrorCode error_code() const { return error_code_; }
    /// Protocol events so far (streams, RST_STREAM, GOAWAY, floods), for metrics.
    const SessionStats& stats() const { return stats_; }

  private:
    using Stream = detail::Stream;
    // What happens to a stream once a frame queued in `pending_` is handed to send()'s output.
    enum class Sent : std::uint8_t { kEndStream, kReset };
    struct SentEvent {
        StreamId id;
        Sent what;
    };
    // Where a header block goes once complete (RFC 9113 §5.1, §8.1).
    enum class BlockTarget : std::uint8_t {
        kRequest,       // a new stream's request head
        kTrailers,      // a trailer section of an open stream
        kDiscard,       // decoded for the HPACK state only (refused, reset, after GOAWAY)
        kStreamClosed,  // decoded, then RST_STREAM(STREAM_CLOSED)
        kSelfDepends,   // decoded, then RST_STREAM(PROTOCOL_ERROR): its priority names itself
    };
    struct Block {
        StreamId id = 0;
        BlockTarget target = BlockTarget::kDiscard;
        bool end_stream = false;
        bool open = false;  // CONTINUATION frames expected
        std::uint32_t continuations = 0;
    };

    ServerSession(const SessionConfig& config, SessionHandler& handler);

    // session_receive.cpp: frames in.
    void on_frame(const detail::FrameHeader& h, std::string_view payload);
    bool within_budgets(const detail::FrameHeader& h);  // the flood buckets; false: failed
    void on_data(const detail::FrameHeader& h, std::string_view payload);
    void on_stream_data_frame(Stream& s, const detail::FrameHeader& h, std::string_view data);
    void on_priority(const detail::FrameHeader& h, std::string_view payload);
    void on_rst_stream(const detail::FrameHeader& h, std::string_view payload);
    void on_settings(const detail::FrameHeader& h, std::string_view payload);
    // Applies a SETTINGS payload from the client; the error code of a bad value, else kNoError.
    ErrorCode apply_settings(std::string_view payload);
    void on_ping(const detail::FrameHeader& h, std::string_view payload);
    void on_goaway(const detail::FrameHeader& h, std::string_view payload);
    void on_window_update(const detail::FrameHeader& h, std::string_view payload);
    void consume_connection(std::size_t n);
    void consume_stream(Stream& s, std::size_t n);

    // session_headers.cpp: header blocks in, requests out.
    void on_headers(const detail::FrameHeader& h, std::string_view payload);
    void on_continuation(const detail::FrameHeader& h, std::string_view payload);
    BlockTarget headers_target(StreamId id, bool self_depends);
    void end_block(std::string_view block);
    bool on_field(std::string_view name, std::string_view value) override;
    void head_complete(Stream& s, bool trailers, bool end_stream);
    void deliver(Stream& s);

    // session_output.cpp: frames out, stream endings.
    Stream* answerable(StreamId id);
    void encode_head(Stream& s, int status, std::span<const HeaderField> headers, bool end_stream);
    void frame_block(std::size_t start, StreamId id, bool end_stream);
    void schedule(Stream& s);
    void frame_data(Stream& s, std::string& out);
    void queue_end_stream(Stream& s);
    void process_sent();
    void end_sent(Stream& s);
    void reset_stream(Stream& s, ErrorCode code);
    void reset_id(StreamId id, ErrorCode code);      // reset_stream() if in the table, else stream_error()
    void stream_error(StreamId id, ErrorCode code);  // RST_STREAM for an id (no stream, or reset_stream's)
    void close_stream(Stream& s);
    void release_unconsumed(Stream& s);
    void count_control();  // a control frame queued; too many unsent is a flood
    // A WINDOW_UPDATE: free while `credit` lasts (one per DATA frame sent), else a control token; false: failed.
    bool window_update_allowed(std::uint32_t& credit);
    void fail(ErrorCode code, const char* reason);
    void flood(FloodKind kind, const char* reason);  // counts the defence, then fail(kEnhanceYourCalm)
    void queue_goaway(ErrorCode code);

    SessionConfig config_;
    SessionHandler& handler_;
    detail::FrameReader reader_;
    detail::StreamTable streams_;
    detail::ClientStreamIds ids_;
    detail::WriteQueue writers_;
    HpackDecoder decoder_;
    HpackEncoder encoder_;
    TokenBucket resets_;
    TokenBucket control_;
    SessionStats stats_;
    detail::ReceiveWindow conn_recv_;
    std::int64_t conn_send_window_ = detail::kDefaultWindow;
    std::int64_t peer_initial_window_ = detail::kDefaultWindow;   // the client's SETTINGS_INITIAL_WINDOW_SIZE
    std::int64_t local_initial_window_ = detail::kDefaultWindow;  // ours, once the client acknowledged it
    std::uint32_t peer_max_frame_ = detail::kDefaultMaxFrameSize;
    std::string pending_;  // control frames and HEADERS in the order produced, not yet handed to send()
    std::vector<SentEvent> sent_;
    std::vector<SentEvent> sent_scratch_;
    std::size_t control_queued_ = 0;  // control frames in `pending_`
    Block block_;
    std::string block_buf_;                    // a header block arriving in several frames
    Stream* block_stream_ = nullptr;           // during decoding: the stream the fields go to
    bool block_trailers_ = false;              // during decoding: the block is a trailer section
    std::size_t block_field_bytes_ = 0;        // during decoding of a block without a stream
    std::vector<HeaderField> request_fields_;  // deliver(): the fields handed to on_request
    std::string name_scratch_;                 // encode_head(), upgrade(): a field name lowered
    std::string block_scratch_;                // frame_block(): a head split into CONTINUATION frames
    base::MonoNanos now_ = 0;
    base::MonoNanos unique_indexed_at_ = -1'000'000'000'000;  // when an x-request-id value was last indexed
    std::size_t active_ = 0;
    std::size_t held_ = 0;                  // set_held_streams(): closed streams the owner still works for
    std::size_t refused_held_ = 0;          // streams refused because of held_ since it was last 0
    std::uint32_t conn_update_credit_ = 1;  // connection WINDOW_UPDATEs free of a token (the first, then per DATA)
    std::size_t receiving_ = 0;
    StreamId goaway_last_ = 0;  // the last stream id of our graceful GOAWAY
    ErrorCode error_code_ = ErrorCode::kNoError;
    const char* fail_reason_ = "";
    bool got_settings_ = false;    // the client's first SETTINGS arrived
    bool settings_acked_ = false;  // the client acknowledged ours
    bool goaway_sent_ = false;
    bool goaway_received_ = false;
    bool fatal_ = false;       // receive() found a connection error
    bool terminated_ = false;  // a final GOAWAY is queued: nothing is framed after it, input is ignored
};

}  // namespace slipstream::http::h2
