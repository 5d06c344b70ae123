// br through the brotli library: a streaming encoder (flushable) and a bounded streaming decoder.
#include <brotli/decode.h>
#include <brotli/encode.h>

#include <algorithm>
#include <bit>
#include <string>

#include "http/compression/codecs.h"

namespace slipstream::http::compression::detail {
namespace {

class BrotliEncoder final : public Encoder {
  public:
    explicit BrotliEncoder(int level) : Encoder(Encoding::kBrotli), level_(level) {}
    ~BrotliEncoder() override {
        if (state_ != nullptr) BrotliEncoderDestroyInstance(state_);
    }

    base::Status init() {
        state_ = BrotliEncoderCreateInstance(nullptr, nullptr, nullptr);
        if (state_ == nullptr) return base::Status::resource_exhausted("brotli: cannot create an encoder");
        BrotliEncoderSetParameter(state_, BROTLI_PARAM_QUALITY, static_cast<std::uint32_t>(level_));
        BrotliEncoderSetParameter(state_, BROTLI_PARAM_LGWIN, BROTLI_DEFAULT_WINDOW);
        return base::Status::ok();
    }

    base::Status write(std::string_view input, std::string& out) override {
        return run(input, BROTLI_OPERATION_PROCESS, out);
    }
    base::Status flush(std::string& out) override { return run({}, BROTLI_OPERATION_FLUSH, out); }
    base::Status finish(std::string& out) override { return run({}, BROTLI_OPERATION_FINISH, out); }
    base::Status reset() override {
        // The library has no reset: a fresh instance.
        if (state_ != nullptr) BrotliEncoderDestroyInstance(state_);
        state_ = nullptr;
        return init();
    }
    base::Status compress(std::string_view input, std::string& out) override {
        // One-shot API: no instance to keep, and a window sized to the input.
        int lgwin =
            std::clamp(static_cast<int>(std::bit_width(input.size())), BROTLI_MIN_WINDOW_BITS, BROTLI_DEFAULT_WINDOW);
        std::size_t before = out.size();
        std::size_t bound = BrotliEncoderMaxCompressedSize(input.size());
        if (bound == 0) bound = input.size() + 1024;
        out.resize(before + bound);
        std::size_t size = bound;
        if (!BrotliEncoderCompress(level_, lgwin, BROTLI_MODE_GENERIC, input.size(),
                                   reinterpret_cast<const std::uint8_t*>(input.data()), &size,
                                   reinterpret_cast<std::uint8_t*>(out.data() + before))) {
            out.resize(before);
            return base::Status::internal("brotli: compression failed");
        }
        out.resize(before + size);
        return base::Status::ok();
    }

  private:
    base::Status run(std::string_view input, BrotliEncoderOperation op, std::string& out) {
        if (state_ == nullptr || BrotliEncoderIsFinished(state_)) {
            return base::Status::invalid_argument("write after finish");
        }
        std::size_t avail_in = input.size();
        const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
        while (true) {
            std::size_t avail_out = 0;
            if (!BrotliEncoderCompressStream(state_, op, &avail_in, &next_in, &avail_out, nullptr, nullptr)) {
                return base::Status::internal("brotli: compression failed");
            }
            std::size_t size = 0;
            const std::uint8_t* data = BrotliEncoderTakeOutput(state_, &size);
            out.append(reinterpret_cast<const char*>(data), size);
            bool done = avail_in == 0 && !BrotliEncoderHasMoreOutput(state_);
            if (op == BROTLI_OPERATION_FINISH) done = done && BrotliEncoderIsFinished(state_);
            if (done) return base::Status::ok();
        }
    }

    int level_;
    BrotliEncoderState* state_ = nullptr;
};

class BrotliDecoder final : public Decoder {
  public:
    explicit BrotliDecoder(DecodeLimits limits) : Decoder(Encoding::kBrotli, limits) {}
    ~BrotliDecoder() override {
        if (state_ != nullptr) BrotliDecoderDestroyInstance(state_);
    }

    base::Status init() {
        state_ = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
        if (state_ == nullptr) return base::Status::resource_exhausted("brotli: cannot create a decoder");
        return base::Status::ok();  // large windows (over 16 MiB) stay off: the library default
    }

  protected:
    base::Result<Step> step(std::string_view& in, std::span<char> out) override {
        if (done_) {
            if (!in.empty()) return malformed("data after the end of the stream");
            return Step{0, true};
        }
        std::size_t avail_in = in.size();
        const auto* next_in = reinterpret_cast<const std::uint8_t*>(in.data());
        std::size_t avail_out = out.size();
        auto* next_out = reinterpret_cast<std::uint8_t*>(out.data());
        BrotliDecoderResult rc =
            BrotliDecoderDecompressStream(state_, &avail_in, &next_in, &avail_out, &next_out, nullptr);
        in.remove_prefix(in.size() - avail_in);
        Step s{out.size() - avail_out, false};
        switch (rc) {
            case BROTLI_DECODER_RESULT_ERROR:
                return malformed("corrupt stream (" +
                                 std::string(BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_))) + ")");
            case BROTLI_DECODER_RESULT_SUCCESS:
                done_ = true;
                s.stream_end = true;
                if (!in.empty()) return malformed("data after the end of the stream");
                return s;
            default:
                return s;
        }
    }

    bool at_end() const override { return done_; }

  private:
    BrotliDecoderState* state_ = nullptr;
    bool done_ = false;
};

}  // namespace

base::Result<std::unique_ptr<Encoder>> make_brotli_encoder(int level) {
    auto e = std::make_unique<BrotliEncoder>(level);
    SLIPSTREAM_RETURN_IF_ERROR(e->init());
    return std::unique_ptr<Encoder>(std::move(e));
}

base::Result<std::unique_ptr<Decoder>> make_brotli_decoder(DecodeLimits limits) {
    auto d = std::make_unique<BrotliDecoder>(limits);
    SLIPSTREAM_RETURN_IF_ERROR(d->init());
    return std::unique_ptr<Decoder>(std::move(d));
}

}  // namespace slipstream::http::compression::detail
