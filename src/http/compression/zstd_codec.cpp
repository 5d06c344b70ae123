// zstd through libzstd: a reusable compression context and a decoder limited to 8 MiB windows.
#include <zstd.h>

#include "http/compression/codecs.h"

namespace slipstream::http::compression::detail {
namespace {

// RFC 9659 §3: HTTP's zstd coding uses windows of at most 8 MiB; decoders may refuse larger ones.
constexpr int kMaxWindowLog = 23;

class ZstdEncoder final : public Encoder {
  public:
    explicit ZstdEncoder(int level) : Encoder(Encoding::kZstd), level_(level) {}
    ~ZstdEncoder() override { ZSTD_freeCCtx(cctx_); }

    base::Status init() {
        cctx_ = ZSTD_createCCtx();
        if (cctx_ == nullptr) return base::Status::resource_exhausted("zstd: cannot create a context");
        if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level_))) {
            return base::Status::invalid_argument("zstd: bad level");
        }
        return base::Status::ok();
    }

    base::Status write(std::string_view input, std::string& out) override { return run(input, ZSTD_e_continue, out); }
    base::Status flush(std::string& out) override { return run({}, ZSTD_e_flush, out); }
    base::Status finish(std::string& out) override {
        SLIPSTREAM_RETURN_IF_ERROR(run({}, ZSTD_e_end, out));
        finished_ = true;
        return base::Status::ok();
    }
    base::Status reset() override {
        finished_ = false;
        ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_only);
        return base::Status::ok();
    }
    base::Status compress(std::string_view input, std::string& out) override {
        SLIPSTREAM_RETURN_IF_ERROR(reset());
        std::size_t before = out.size();
        std::size_t bound = ZSTD_compressBound(input.size());
        out.resize(before + bound);
        std::size_t n = ZSTD_compress2(cctx_, out.data() + before, bound, input.data(), input.size());
        if (ZSTD_isError(n)) {
            out.resize(before);
            return base::Status::internal(std::string("zstd: ") + ZSTD_getErrorName(n));
        }
        out.resize(before + n);
        finished_ = true;
        return base::Status::ok();
    }

  private:
    base::Status run(std::string_view input, ZSTD_EndDirective mode, std::string& out) {
        if (finished_) return base::Status::invalid_argument("write after finish");
        ZSTD_inBuffer in{input.data(), input.size(), 0};
        while (true) {
            std::size_t before = out.size();
            std::size_t room = ZSTD_CStreamOutSize();
            out.resize(before + room);
            ZSTD_outBuffer o{out.data() + before, room, 0};
            std::size_t left = ZSTD_compressStream2(cctx_, &o, &in, mode);
            out.resize(before + o.pos);
            if (ZSTD_isError(left)) return base::Status::internal(std::string("zstd: ") + ZSTD_getErrorName(left));
            bool done = mode == ZSTD_e_continue ? in.pos == in.size : left == 0;
            if (done) return base::Status::ok();
        }
    }

    int level_;
    ZSTD_CCtx* cctx_ = nullptr;
    bool finished_ = false;
};

class ZstdDecoder final : public Decoder {
  public:
    explicit ZstdDecoder(DecodeLimits limits) : Decoder(Encoding::kZstd, limits) {}
    ~ZstdDecoder() override { ZSTD_freeDCtx(dctx_); }

    base::Status init() {
        dctx_ = ZSTD_createDCtx();
        if (dctx_ == nullptr) return base::Status::resource_exhausted("zstd: cannot create a context");
        ZSTD_DCtx_setParameter(dctx_, ZSTD_d_windowLogMax, kMaxWindowLog);
        return base::Status::ok();
    }

  protected:
    base::Result<Step> step(std::string_view& in, std::span<char> out) override {
        ZSTD_inBuffer i{in.data(), in.size(), 0};
        ZSTD_outBuffer o{out.data(), out.size(), 0};
        std::size_t hint = ZSTD_decompressStream(dctx_, &o, &i);
        in.remove_prefix(i.pos);
        if (ZSTD_isError(hint)) return malformed(ZSTD_getErrorName(hint));
        if (i.pos > 0 || o.pos > 0) {
            started_ = true;
            frame_end_ = hint == 0;  // a frame ended; more input starts another (concatenated frames are valid)
        }
        return Step{o.pos, frame_end_};
    }

    bool at_end() const override { return started_ && frame_end_; }

  private:
    ZSTD_DCtx* dctx_ = nullptr;
    bool started_ = false;
    bool frame_end_ = false;
};

}  // namespace

base::Result<std::unique_ptr<Encoder>> make_zstd_encoder(int level) {
    auto e = std::make_unique<ZstdEncoder>(level);
    SLIPSTREAM_RETURN_IF_ERROR(e->init());
    return std::unique_ptr<Encoder>(std::move(e));
}

base::Result<std::unique_ptr<Decoder>> make_zstd_decoder(DecodeLimits limits) {
    auto d = std::make_unique<ZstdDecoder>(limits);
    SLIPSTREAM_RETURN_IF_ERROR(d->init());
    return std::unique_ptr<Decoder>(std::move(d));
}

}  // namespace slipstream::http::compression::detail
