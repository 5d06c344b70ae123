// ClientSession: an HTTP/2 client connection's protocol engine (RFC 9113): requests in, frames out, responses out.
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
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "http/h2/error_code.h"
#include "http/h2/frame.h"
#include "http/h2/frame_reader.h"
#include "http/h2/hpack/hpack_decoder.h"
#include "http/h2/hpack/hpack_encoder.h"
#include "http/h2/receive_window.h"
#include "http/h2/session.h"

namespace slipstream::http::h2 {

/// What a client session advertises (its first SETTINGS) and the limits it holds a server to.
struct ClientSessionConfig {
    /// Streams open at once, whatever the server's SETTINGS_MAX_CONCURRENT_STREAMS allows (the lower wins).
    std::uint32_t max_concurrent_streams = 100;
    /// SETTINGS_INITIAL_WINDOW_SIZE: what the server may send on one stream before its reader consumes it,
    /// so the most a paused stream holds.
    std::uint32_t stream_window = 256 * 1024;
    /// The connection's receive window (raised from 65535 by a WINDOW_UPDATE at the start). Bytes are returned
    /// to it as they arrive: one paused stream never blocks the others.
    std::uint32_t connection_window = 16 * 1024 * 1024;
    /// SETTINGS_MAX_HEADER_LIST_SIZE (name + value + 32 per field): a larger response head is a stream error.
    std::uint32_t max_header_list_size = 64 * 1024;
    /// A header block (HEADERS + CONTINUATION, compressed) larger than this ends the connection.
    std::uint32_t max_header_block_bytes = 256 * 1024;
    /// Control frames the server makes us answer (SETTINGS and PING acknowledgements) unsent at once; more is a
    /// flood (GOAWAY ENHANCE_YOUR_CALM).
    std::uint32_t max_queued_control_frames = 1000;
};

/// Why a stream ended without a complete response.
struct ClientStreamError {
    ErrorCode code = ErrorCode::kNoError;
    /// The server never processed the request (RST_STREAM REFUSED_STREAM, or above a GOAWAY's last stream id):
    /// it may be sent again, whatever its method (RFC 9113 §8.7).
    bool unprocessed = false;
    /// The server's RST_STREAM (or GOAWAY); else the session found the response malformed or the connection failed.
    bool remote = false;
    std::string_view reason;
};

/// What the session tells its owner, from inside receive(). The owner may call submit(), reset() and consume()
/// from these callbacks; a stream's id is never reported again after on_response_end or on_stream_error.
class ClientSessionHandler {
  public:
    /// The final response head (1xx heads are skipped). Views valid during the call; names lowercase.
    virtual void on_response_head(std::uint32_t id, int status, std::span<const HeaderField> fields) = 0;
    /// The next body bytes, in order. They count against the stream's receive window until consume().
    virtual void on_response_data(std::uint32_t id, std::string_view data) = 0;
    /// The response is complete (END_STREAM; trailers are read and dropped).
    virtual void on_response_end(std::uint32_t id) = 0;
    /// The stream ended without a complete response: reset by the server, malformed (we reset it), refused by a
    /// GOAWAY, or the connection failed (every open stream hears it).
    virtual void on_stream_error(std::uint32_t id, const ClientStreamError& error) = 0;
    /// The server sent GOAWAY: no new stream may start here. Streams above `last_stream` heard on_stream_error
    /// (unprocessed) before this; the others go on.
    virtual void on_goaway(std::uint32_t last_stream, ErrorCode code) = 0;

  protected:
    ~ClientSessionHandler() = default;
};

/// One request as submitted. `headers` names must be valid field names (they are lowercased here) and must not be
/// connection-specific; :method, :scheme, :authority and :path come from the other members.
struct ClientRequest {
    std::string_view method;
    std::string_view scheme;
    std::string_view authority;
    std::string_view path;
    std::span<const HeaderField> headers;
    std::string body;  // sent in DATA frames as the windows allow; END_STREAM on the HEADERS when empty
};

/// One HTTP/2 client connection's protocol state. Never touches a socket: the owner writes what send()
/// produces and feeds what it reads to receive(). Not thread-safe.
class ClientSession final : private HpackFieldSink {
  public:
    /// Queues the connection preface, our SETTINGS and the connection window's first WINDOW_UPDATE.
    ClientSession(const ClientSessionConfig& config, ClientSessionHandler& handler);
    ~ClientSession();
    ClientSession(const ClientSession&) = delete;
    ClientSession& operator=(const ClientSession&) = delete;

    /// True while a new stream may start: no GOAWAY either way, no fatal error, stream ids left, fewer open
    /// streams than both limits.
    bool can_submit() const;
    /// True while streams may still start here, now or once open ones end (can_submit() without the limits).
    bool accepting() const;
    /// Starts a stream (HEADERS queued at once, the body as the windows allow). Errors: kUnavailable (GOAWAY,
    /// failed, ids exhausted), kResourceExhausted (the stream limit), kInvalidArgument (CONNECT, a bad field).
    base::Result<std::uint32_t> submit(const ClientRequest& request);
    /// Processes bytes from the server. A connection error queues GOAWAY, reports every open stream
    /// (on_stream_error) and returns kInvalidArgument naming the violation (kResourceExhausted for a flood);
    /// the session is then dead: send() what is queued and close.
    base::Status receive(std::string_view bytes);
    /// Appends queued frames, then DATA within the windows, until nothing is left or `out` holds `limit` bytes.
    std::size_t send(std::string& out, std::size_t limit = 64 * 1024);
    bool want_write() const;
    /// The owner processed `n` bytes of the stream's data: they reopen its window (WINDOW_UPDATE when half
    /// the window was consumed). Unknown ids are ignored.
    void consume(std::uint32_t id, std::size_t n);
    /// Cancels a stream: RST_STREAM `code`; no callback for it afterwards. Unknown ids are ignored.
    void reset(std::uint32_t id, ErrorCode code = ErrorCode::kCancel);
    /// Graceful close from our side: GOAWAY(NO_ERROR); no new streams.
    void shutdown();

    std::size_t open_streams() const { return streams_.size(); }
    bool dead() const { return dead_; }
    bool goaway_received() const { return goaway_received_; }
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (until it says: unlimited).
    std::uint32_t peer_max_streams() const { return peer_max_streams_; }
    ErrorCode error_code() const { return error_code_; }

  private:
    struct Stream {
        std::uint32_t id = 0;
        std::int64_t send_window = 0;
        detail::ReceiveWindow recv;
        std::string body;  // the request body left to send, from body_pos
        std::size_t body_pos = 0;
        bool local_ended = false;  // END_STREAM sent (or queued)
        bool head = false;         // the final response head arrived
        bool no_content = false;   // a HEAD request: Content-Length describes a body that is not sent (§8.1.1)
        std::int64_t content_length = -1;
        std::uint64_t data_bytes = 0;
        bool writing = false;  // in writers_
    };
    struct Block {
        std::uint32_t id = 0;
        bool end_stream = false;
        bool open = false;  // CONTINUATION frames expected
        std::uint32_t continuations = 0;
    };

    // client_session_receive.cpp: frames in.
    void on_frame(const detail::FrameHeader& h, std::string_view payload);
    void on_data(const detail::FrameHeader& h, std::string_view payload);
    void on_headers(const detail::FrameHeader& h, std::string_view payload);
    void on_continuation(const detail::FrameHeader& h, std::string_view payload);
    void end_block();
    void response_head(Stream& s, bool ends);
    void on_rst_stream(const detail::FrameHeader& h, std::string_view payload);
    void on_settings(const detail::FrameHeader& h, std::string_view payload);
    void on_ping(const detail::FrameHeader& h, std::string_view payload);
    void on_goaway(const detail::FrameHeader& h, std::string_view payload);
    void on_window_update(const detail::FrameHeader& h, std::string_view payload);
    bool on_field(std::string_view name, std::string_view value) override;
    // An id the server may not name: 0 handled by callers; even, or never opened by us.
    bool idle_id(std::uint32_t id) const { return (id & 1u) == 0 || id >= next_id_; }
    Stream* find(std::uint32_t id);
    void end_stream(std::uint32_t id);  // the response is complete
    void stream_error(std::uint32_t id, ErrorCode code, const char* reason);
    void fail(ErrorCode code, const char* reason);
    bool queue_control();  // an acknowledgement queued; false (and failed) past the limit

    // client_session.cpp: frames out.
    void frame_block(const std::string& block, std::uint32_t id, bool end_stream);
    void schedule(Stream& s);
    void frame_data(std::string& out);
    void forget(std::uint32_t id);

    ClientSessionConfig config_;
    ClientSessionHandler& handler_;
    detail::FrameReader reader_;
    HpackEncoder encoder_;
    HpackDecoder decoder_;
    std::unordered_map<std::uint32_t, std::unique_ptr<Stream>> streams_;
    std::deque<std::uint32_t> writers_;  // streams with body bytes to send, round robin
    detail::ReceiveWindow conn_recv_;
    std::int64_t conn_send_window_ = detail::kDefaultWindow;
    std::int64_t peer_initial_window_ = detail::kDefaultWindow;
    std::uint32_t peer_max_frame_ = detail::kDefaultMaxFrameSize;
    std::uint32_t peer_max_streams_ = 0xffffffffu;
    std::uint32_t next_id_ = 1;
    std::string pending_;  // frames in the order produced, not yet handed out
    std::uint32_t control_queued_ = 0;
    Block block_;
    std::string block_buf_;
    std::string block_scratch_;
    // Decoding a block: the fields (owned: HPACK's views last one call) and what is wrong with them.
    std::vector<std::pair<std::string, std::string>> fields_;
    std::size_t field_bytes_ = 0;
    const char* malformed_ = nullptr;
    int status_ = 0;
    bool regular_seen_ = false;
    std::int64_t field_content_length_ = -1;
    ErrorCode error_code_ = ErrorCode::kNoError;
    std::string fail_reason_;
    bool got_settings_ = false;
    bool goaway_received_ = false;
    bool goaway_sent_ = false;
    bool dead_ = false;
};

}  // namespace slipstream::http::h2
