// gzip and deflate through zlib: a reusable deflate stream and a multi-member inflate stream.
#define ZLIB_CONST
#include <zlib.h>

#include "http/compression/codecs.h"

namespace slipstream::http::compression::detail {
namespace {

constexpr int kGzipWindow = 15 + 16;  // zlib: 16 added selects the gzip wrapper
constexpr int kZlibWindow = 15;
constexpr int kRawWindow = -15;

class ZlibEncoder final : public Encoder {
  public:
    ZlibEncoder(bool gzip) : Encoder(gzip ? Encoding::kGzip : Encoding::kDeflate) {}
    ~ZlibEncoder() override {
        if (initialized_) deflateEnd(&zs_);
    }

    base::Status init(bool gzip, int level) {
        int rc = deflateInit2(&zs_, level, Z_DEFLATED, gzip ? kGzipWindow : kZlibWindow, 8, Z_DEFAULT_STRATEGY);
        if (rc != Z_OK) return base::Status::resource_exhausted("zlib: deflateInit2 failed");
        initialized_ = true;
        return base::Status::ok();
    }

    base::Status write(std::string_view input, std::string& out) override { return run(input, Z_NO_FLUSH, out); }
    base::Status flush(std::string& out) override { return run({}, Z_SYNC_FLUSH, out); }
    base::Status finish(std::string& out) override {
        SLIPSTREAM_RETURN_IF_ERROR(run({}, Z_FINISH, out));
        finished_ = true;
        return base::Status::ok();
    }
    base::Status reset() override {
        finished_ = false;
        return deflateReset(&zs_) == Z_OK ? base::Status::ok() : base::Status::internal("zlib: deflateReset failed");
    }
    base::Status compress(std::string_view input, std::string& out) override {
        SLIPSTREAM_RETURN_IF_ERROR(reset());
        out.reserve(out.size() + deflateBound(&zs_, static_cast<uLong>(input.size())));
        return finish_with(input, out);
    }

  private:
    base::Status finish_with(std::string_view input, std::string& out) {
        SLIPSTREAM_RETURN_IF_ERROR(run(input, Z_FINISH, out));
        finished_ = true;
        return base::Status::ok();
    }

    // zlib's contract: when a call leaves output space unused, all input was taken and the flush is done
    // (for Z_FINISH the call returned Z_STREAM_END).
    base::Status run(std::string_view input, int mode, std::string& out) {
        if (finished_) return base::Status::invalid_argument("write after finish");
        zs_.next_in = reinterpret_cast<const Bytef*>(input.data());
        zs_.avail_in = static_cast<uInt>(input.size());
        do {
            std::size_t before = out.size();
            std::size_t room = std::max<std::size_t>(out.capacity() - before, 16 * 1024);
            out.resize(before + room);
            zs_.next_out = reinterpret_cast<Bytef*>(out.data() + before);
            zs_.avail_out = static_cast<uInt>(room);
            int rc = deflate(&zs_, mode);
            out.resize(before + room - zs_.avail_out);
            if (rc == Z_STREAM_ERROR) return base::Status::internal("zlib: deflate failed");
            if (zs_.avail_out != 0) break;
        } while (true);
        return base::Status::ok();
    }

    z_stream zs_{};
    bool initialized_ = false;
    bool finished_ = false;
};

class ZlibDecoder final : public Decoder {
  public:
    ZlibDecoder(bool gzip, DecodeLimits limits)
        : Decoder(gzip ? Encoding::kGzip : Encoding::kDeflate, limits), gzip_(gzip) {}
    ~ZlibDecoder() override {
        if (initialized_) inflateEnd(&zs_);
    }

  protected:
    base::Result<Step> step(std::string_view& in, std::span<char> out) override {
        if (!initialized_) {
            if (in.empty()) return Step{};
            SLIPSTREAM_RETURN_IF_ERROR(init(in));
        }
        if (ended_ && !in.empty()) {
            if (!gzip_) return malformed("data after the end of the stream");
            inflateReset(&zs_);  // gzip: another member follows (RFC 1952 §2.2)
            ended_ = false;
        }
        zs_.next_in = reinterpret_cast<const Bytef*>(in.data());
        zs_.avail_in = static_cast<uInt>(in.size());
        zs_.next_out = reinterpret_cast<Bytef*>(out.data());
        zs_.avail_out = static_cast<uInt>(out.size());
        int rc = inflate(&zs_, Z_NO_FLUSH);
        in.remove_prefix(in.size() - zs_.avail_in);
        Step s{out.size() - zs_.avail_out, false};
        switch (rc) {
            case Z_STREAM_END:
                ended_ = true;
                s.stream_end = true;
                return s;
            case Z_OK:
            case Z_BUF_ERROR:  // no progress possible: needs input (or output space)
                return s;
            case Z_NEED_DICT:
                return malformed("a preset dictionary is required");
            case Z_MEM_ERROR:
                return base::Status::resource_exhausted("zlib: out of memory");
            default:
                return malformed(zs_.msg != nullptr ? zs_.msg : "corrupt stream");
        }
    }

    bool at_end() const override { return ended_; }

  private:
    // deflate in HTTP should be zlib-wrapped, but raw deflate is common: a zlib header has CM=8,
    // CINFO<=7 and a check making the first two bytes a multiple of 31.
    base::Status init(std::string_view first) {
        int window = kGzipWindow;
        if (!gzip_) {
            auto b0 = static_cast<unsigned char>(first[0]);
            bool zlib = (b0 & 0x0f) == 8 && (b0 >> 4) <= 7;
            if (zlib && first.size() >= 2) zlib = ((b0 << 8) | static_cast<unsigned char>(first[1])) % 31 == 0;
            window = zlib ? kZlibWindow : kRawWindow;
        }
        if (inflateInit2(&zs_, window) != Z_OK) return base::Status::resource_exhausted("zlib: inflateInit2 failed");
        initialized_ = true;
        return base::Status::ok();
    }

    z_stream zs_{};
    bool gzip_;
    bool initialized_ = false;
    bool ended_ = false;
};

}  // namespace

base::Result<std::unique_ptr<Encoder>> make_zlib_encoder(bool gzip, int level) {
    auto e = std::make_unique<ZlibEncoder>(gzip);
    SLIPSTREAM_RETURN_IF_ERROR(e->init(gzip, level));
    return std::unique_ptr<Encoder>(std::move(e));
}

base::Result<std::unique_ptr<Decoder>> make_zlib_decoder(bool gzip, DecodeLimits limits) {
    return std::unique_ptr<Decoder>(std::make_unique<ZlibDecoder>(gzip, limits));
}

}  // namespace slipstream::http::compression::detail
