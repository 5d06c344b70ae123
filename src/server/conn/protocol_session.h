// ProtocolSession: the protocol a Connection speaks (HTTP/1.1, HTTP/2, WebSocket; later an ASGI bridge, MCP streams).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace slipstream::server {

/// Why the connection's one timer is armed. The connection handles kHandshake, kWrite, kWriteRate and kLinger
/// itself; the session arms (and is told of) the others. kBodyRate / kWriteRate: the body or the waiting output
/// fell below its minimum rate (transfer_deadline.h).
enum class TimerReason : std::uint8_t {
    kNone,
    kHead,
    kBody,
    kIdle,
    kWrite,
    kLinger,
    kHandshake,
    kBodyRate,
    kWriteRate
};

/// Owned by its Connection, which keeps the transport (plain or TLS), the fd's registration, the one timer, the
/// output queue and the lingering close; the session owns the protocol's state and decides what input, timers,
/// writability and the drain mean. The connection makes one virtual call into it per event; the session calls
/// back into the connection (non-virtual) for I/O. A session may replace itself (Connection::switch_to) during
/// a call: an HTTP/1.1 upgrade to WebSocket or h2c. Loop thread only.
class ProtocolSession {
  public:
    virtual ~ProtocolSession() = default;

    /// Bytes were read: `data` views the worker's read scratch (`from_scratch`) or the connection's input buffer
    /// (what was kept there, with the new bytes). The session consumes what it can, keeps the rest in
    /// Connection::input() (and consumes what it took from there), writes, and refreshes the timer.
    virtual void on_read(std::string_view data, bool from_scratch) = 0;
    /// The client closed its side (a read returned 0).
    virtual void on_eof() = 0;
    /// Output was written (the socket became writable, a deferred flush ran): what waited for room goes on.
    virtual void after_output() = 0;
    /// The connection's timer fired for a session reason (kHead, kBody, kBodyRate, kIdle).
    virtual void on_timer(TimerReason reason) = 0;
    /// Arms the connection's timer for the session's state; called when no output waits for the client.
    /// `progressed`: bytes were just read.
    virtual void refresh_timer(bool progressed) = 0;
    /// The server is draining: close at once when idle, else after what is in progress.
    virtual void begin_drain() = 0;
    /// The connection closed (its fd is gone): answers still awaited are cut and their producers cancelled.
    virtual void on_closed() = 0;
    /// Nothing in progress: a drain may close the connection now.
    virtual bool idle() const = 0;
    /// Answers are still owed (an HTTP/1.1 slot not yet written): a close after the output waits for them.
    virtual bool owes_output() const { return false; }
};

class Connection;

/// How a Connection gets its sessions from the protocol libraries above this one (set by the Server, which
/// links them all): the connection layer never names a protocol's session type.
struct SessionFactory {
    /// The session a new connection starts with: HTTP/1.1, which may switch itself to h2c or WebSocket.
    std::unique_ptr<ProtocolSession> (*open)(Connection& connection) = nullptr;
    /// Switches `connection` to HTTP/2 (ALPN "h2": `first_bytes` empty; the cleartext preface: the bytes that
    /// came with it, fed to the new session). Returns the new session, or null when it could not be made (then
    /// the connection is closed).
    ProtocolSession* (*start_h2)(Connection& connection, std::string_view first_bytes) = nullptr;
};

}  // namespace slipstream::server
