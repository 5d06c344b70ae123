// Inflater and Deflater over zlib's raw DEFLATE streams.
#include "http/ws/inflater.h"

#include <zlib.h>

#include <algorithm>
#include <new>

namespace slipstream::http::ws {
namespace {
constexpr std::size_t kChunk = 16 * 1024;
constexpr char kTail[4] = {0x00, 0x00, static_cast<char>(0xFF), static_cast<char>(0xFF)};
}  // namespace

struct Inflater::State {
    z_stream z{};
    bool ok = false;
};

Inflater::Inflater() : state_(std::make_unique<State>()) {
    state_->ok = inflateInit2(&state_->z, -15) == Z_OK;
}

Inflater::~Inflater() {
    if (state_->ok) inflateEnd(&state_->z);
}

base::Status Inflater::feed(std::string_view in, std::string& out, std::size_t max_out) {
    z_stream& z = state_->z;
    if (!state_->ok) return base::Status::internal("inflate state unavailable");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    if (out.size() > max_out) return base::Status::out_of_range("inflated message too large");
    for (;;) {
        // Room for at most one byte past the cap: producing it proves the message is too big.
        std::size_t room = std::min(kChunk, max_out + 1 - out.size());
        std::size_t old = out.size();
        out.resize(old + room);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + old);
        z.avail_out = static_cast<uInt>(room);
        int rc = inflate(&z, Z_SYNC_FLUSH);
        out.resize(old + (room - z.avail_out));
        if (out.size() > max_out) return base::Status::out_of_range("inflated message too large");
        if (rc == Z_STREAM_END) {
            // The sender ended the stream (BFINAL): a later block starts a fresh one.
            inflateReset(&z);
            if (z.avail_in == 0) break;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) return base::Status::invalid_argument("corrupt deflate data");
        // inflate() returns with output space left only once the input is used up.
        if (z.avail_out != 0) break;
    }
    return base::Status::ok();
}

base::Status Inflater::end_message(std::string& out, std::size_t max_out, bool reset) {
    base::Status s = feed(std::string_view(kTail, 4), out, max_out);
    if (s.is_ok() && reset) inflateReset(&state_->z);
    return s;
}

struct Deflater::State {
    z_stream z{};
};

Deflater::Deflater(int window_bits, bool reset_each_message)
    : state_(std::make_unique<State>()), reset_each_message_(reset_each_message) {
    // memLevel 8 with a 32 KiB window costs ~256 KiB per connection; smaller windows cost less.
    if (deflateInit2(&state_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -std::clamp(window_bits, 9, 15), 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
        throw std::bad_alloc();
    }
}

Deflater::~Deflater() {
    deflateEnd(&state_->z);
}

base::Status Deflater::compress(std::string_view in, std::string& out) {
    z_stream& z = state_->z;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    std::size_t start = out.size();
    for (;;) {
        std::size_t room = std::max<std::size_t>(kChunk, in.size() / 2 + 64);
        std::size_t old = out.size();
        out.resize(old + room);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + old);
        z.avail_out = static_cast<uInt>(room);
        int rc = deflate(&z, Z_SYNC_FLUSH);
        out.resize(old + (room - z.avail_out));
        if (rc != Z_OK && rc != Z_BUF_ERROR) return base::Status::internal("deflate failed");
        if (z.avail_out != 0 && z.avail_in == 0) break;  // flush complete
    }
    // A sync flush ends with 00 00 FF FF; the receiver adds it back.
    if (out.size() - start >= 4 && std::string_view(out).substr(out.size() - 4) == std::string_view(kTail, 4)) {
        out.resize(out.size() - 4);
    }
    if (reset_each_message_) deflateReset(&z);
    return base::Status::ok();
}

}  // namespace slipstream::http::ws
