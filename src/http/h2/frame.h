// Frame: HTTP/2 frame types, flags and settings (RFC 9113 §4, §6), the 9-byte header read and frames written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace slipstream::http::h2 {
/// The client connection preface (RFC 9113 §3.4); its first bytes also tell an h2c prior-knowledge client apart.
inline constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
}  // namespace slipstream::http::h2

namespace slipstream::http::h2::detail {

enum class FrameType : std::uint8_t {
    kData = 0x0,
    kHeaders = 0x1,
    kPriority = 0x2,
    kRstStream = 0x3,
    kSettings = 0x4,
    kPushPromise = 0x5,
    kPing = 0x6,
    kGoaway = 0x7,
    kWindowUpdate = 0x8,
    kContinuation = 0x9,
};

inline constexpr std::uint8_t kFlagEndStream = 0x1;  // DATA, HEADERS
inline constexpr std::uint8_t kFlagAck = 0x1;        // SETTINGS, PING
inline constexpr std::uint8_t kFlagEndHeaders = 0x4;
inline constexpr std::uint8_t kFlagPadded = 0x8;
inline constexpr std::uint8_t kFlagPriority = 0x20;

inline constexpr std::size_t kFrameHeaderSize = 9;
inline constexpr std::uint32_t kDefaultMaxFrameSize = 16384;  // SETTINGS_MAX_FRAME_SIZE's initial value
inline constexpr std::uint32_t kLargestMaxFrameSize = (1u << 24) - 1;
inline constexpr std::int64_t kMaxWindow = 0x7fffffff;  // 2^31-1 (§6.9.1)
inline constexpr std::uint32_t kDefaultWindow = 65535;  // every window's size until SETTINGS change it

// Setting identifiers (§6.5.2; RFC 8441 §3).
inline constexpr std::uint16_t kSettingHeaderTableSize = 0x1;
inline constexpr std::uint16_t kSettingEnablePush = 0x2;
inline constexpr std::uint16_t kSettingMaxConcurrentStreams = 0x3;
inline constexpr std::uint16_t kSettingInitialWindowSize = 0x4;
inline constexpr std::uint16_t kSettingMaxFrameSize = 0x5;
inline constexpr std::uint16_t kSettingMaxHeaderListSize = 0x6;
inline constexpr std::uint16_t kSettingEnableConnectProtocol = 0x8;

struct FrameHeader {
    std::uint32_t length = 0;
    std::uint8_t type = 0;
    std::uint8_t flags = 0;
    std::uint32_t stream = 0;  // the reserved bit dropped (§4.1: ignored on receipt)
    bool has(std::uint8_t flag) const { return (flags & flag) != 0; }
};

inline std::uint32_t read_u32(const char* p) {
    auto b = [p](int i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(p[i])); };
    return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

inline std::uint16_t read_u16(const char* p) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(p[0]) << 8 | static_cast<unsigned char>(p[1]));
}

/// Reads a frame header from 9 bytes at `p`.
inline FrameHeader parse_frame_header(const char* p) {
    FrameHeader h;
    h.length = read_u32(p) >> 8;
    h.type = static_cast<std::uint8_t>(p[3]);
    h.flags = static_cast<std::uint8_t>(p[4]);
    h.stream = read_u32(p + 5) & 0x7fffffffu;
    return h;
}

/// Writes a frame header into 9 bytes at `p`.
void put_frame_header(char* p, std::size_t length, FrameType type, std::uint8_t flags, std::uint32_t stream);

// Frames appended whole to `out`.
void append_frame_header(std::string& out, std::size_t length, FrameType type, std::uint8_t flags,
                         std::uint32_t stream);
struct Setting {
    std::uint16_t id;
    std::uint32_t value;
};
void append_settings(std::string& out, const Setting* settings, std::size_t count);
void append_settings_ack(std::string& out);
void append_ping_ack(std::string& out, std::string_view payload);
void append_window_update(std::string& out, std::uint32_t stream, std::uint32_t increment);
void append_rst_stream(std::string& out, std::uint32_t stream, std::uint32_t code);
void append_goaway(std::string& out, std::uint32_t last_stream, std::uint32_t code);

}  // namespace slipstream::http::h2::detail
