// Decoder factory, the bounded decode loop and the limit checks.
#include "http/compression/decoder.h"

#include <algorithm>

#include "http/compression/codecs.h"

namespace slipstream::http::compression {

base::Result<std::unique_ptr<Decoder>> Decoder::create(Encoding encoding, DecodeLimits limits) {
    switch (encoding) {
        case Encoding::kGzip:
            return detail::make_zlib_decoder(true, limits);
        case Encoding::kDeflate:
            return detail::make_zlib_decoder(false, limits);
        case Encoding::kBrotli:
            return detail::make_brotli_decoder(limits);
        case Encoding::kZstd:
            return detail::make_zstd_decoder(limits);
        case Encoding::kIdentity:
            break;
    }
    return base::Status::invalid_argument("identity needs no decoder");
}

base::Status Decoder::malformed(std::string_view why) const {
    return base::Status::invalid_argument("invalid " + std::string(encoding_token(encoding_)) +
                                          " data: " + std::string(why));
}

base::Status Decoder::check_limits() {
    if (total_out_ > limits_.max_output) {
        return base::Status::out_of_range("the decompressed body exceeds the limit of " +
                                          std::to_string(limits_.max_output) + " bytes");
    }
    // out > ratio * in, without overflow: compare the quotient, then the remainder.
    std::size_t quotient = limits_.max_ratio == 0 ? 0 : total_out_ / limits_.max_ratio;
    bool over_ratio = limits_.max_ratio != 0 &&
                      (quotient > total_in_ || (quotient == total_in_ && total_out_ % limits_.max_ratio != 0));
    if (over_ratio && total_out_ > limits_.ratio_grace) {
        exceeded_ratio_ = true;
        return base::Status::out_of_range("the body expands more than " + std::to_string(limits_.max_ratio) +
                                          " times when decompressed");
    }
    return base::Status::ok();
}

base::Status Decoder::write(std::string_view input, std::string& out) {
    if (failed_) return base::Status::invalid_argument("the decoder already failed");
    // Input counts as soon as it is given: the ratio compares output with what the client sent so far.
    total_in_ += input.size();
    constexpr std::size_t kStepBytes = 64 * 1024;
    while (true) {
        // At most one byte past the size cap, so passing it is seen without decoding further.
        std::size_t allowed = limits_.max_output - std::min(limits_.max_output, total_out_) + 1;
        std::size_t room = std::min(kStepBytes, allowed);
        std::size_t before = out.size();
        std::size_t in_before = input.size();
        out.resize(before + room);
        base::Result<Step> r = step(input, std::span<char>(out.data() + before, room));
        if (!r.is_ok()) {
            out.resize(before);
            failed_ = true;
            return r.status();
        }
        out.resize(before + r->produced);
        total_out_ += r->produced;
        base::Status s = check_limits();
        if (!s.is_ok()) {
            failed_ = true;
            return s;
        }
        if (input.empty() && r->produced < room) return base::Status::ok();  // drained: needs more input
        if (r->produced == 0 && input.size() == in_before) {
            failed_ = true;
            return malformed("the decoder made no progress");
        }
    }
}

base::Status Decoder::finish() {
    if (failed_) return base::Status::invalid_argument("the decoder already failed");
    if (!at_end()) return malformed("truncated stream");
    return base::Status::ok();
}

base::Result<std::string> decode(Encoding encoding, std::string_view input, const DecodeLimits& limits) {
    SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<Decoder> decoder, Decoder::create(encoding, limits));
    std::string out;
    SLIPSTREAM_RETURN_IF_ERROR(decoder->write(input, out));
    SLIPSTREAM_RETURN_IF_ERROR(decoder->finish());
    return out;
}

}  // namespace slipstream::http::compression
