// ServerSession: the narrow adapter over nghttp2's server session: bytes in, request events out, frames out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "base/clock.h"
#include "base/result.h"
#include "http/h2/error_code.h"
#include "http/h2/session_config.h"
#include "http/h2/session_stats.h"
#include "http/h2/token_bucket.h"

typedef struct nghttp2_session nghttp2_session;

namespace slipstream::http::h2::detail {
class RecyclingAllocator;
}

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

/// What the session tells its owner. Called from inside receive() (and, for on_stream_reset, from send()
/// or reset()). The handler may call the session's respond/write/end/reset methods from these callbacks.
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
class ServerSession {
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
    struct Stream;
    struct Scratch;
    using StreamMap = std::unordered_map<StreamId, std::unique_ptr<Stream>>;
    struct Callbacks;
    friend struct Callbacks;

    ServerSession(const SessionConfig& config, SessionHandler& handler);
    Stream* find(StreamId id);
    // Streams are recycled with their map nodes: a closed stream's buffers and node serve the next one.
    Stream& open_stream(StreamId id);
    void close_stream(StreamMap::iterator it);
    // Records a client stream id seen in a HEADERS frame; false when it reuses an id the client skipped.
    bool note_client_stream(StreamId id);
    base::Status submit(StreamId id, int status, std::span<const HeaderField> headers, bool with_body);
    void deliver(Stream& s);
    // Returns to the connection's window what a closing tunnel was not told to consume.
    void release_unconsumed(Stream& s);
    int fail(ErrorCode code);
    int flood(FloodKind kind);  // counts the defence, then fail(kEnhanceYourCalm)

    SessionConfig config_;
    SessionHandler& handler_;
    nghttp2_session* session_ = nullptr;
    StreamMap streams_;
    TokenBucket resets_;
    TokenBucket control_;
    std::unique_ptr<Scratch> scratch_;
    SessionStats stats_;
    std::unique_ptr<detail::RecyclingAllocator> allocator_;  // nghttp2's memory; outlives session_
    Stream* found_ = nullptr;                                // the stream find() returned last (cleared when it closes)
    base::MonoNanos now_ = 0;
    base::MonoNanos unique_indexed_at_ = -1'000'000'000'000;  // when an x-request-id value was last indexed
    std::uint32_t continuations_ = 0;
    static constexpr std::size_t kMaxSkippedRanges = 64;
    StreamId last_client_stream_ = -1;
    std::deque<std::pair<StreamId, StreamId>> skipped_;  // recent ranges of client ids never used
    std::size_t active_ = 0;
    std::size_t receiving_ = 0;
    ErrorCode error_code_ = ErrorCode::kNoError;
    bool fatal_ = false;
    bool broken_ = false;  // nghttp2 failed while producing output: close at once
};

}  // namespace slipstream::http::h2
