// Fuzz target: the bounded decoders. The first byte picks the coding and how input is split; decoding must
// never exceed its caps, and whatever decodes in one piece must decode the same fed in two pieces.
#include <cstdint>
#include <string>
#include <string_view>

#include "http/compression/decoder.h"

namespace {

using namespace slipstream::http::compression;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    constexpr Encoding kCodings[] = {Encoding::kGzip, Encoding::kDeflate, Encoding::kBrotli, Encoding::kZstd};
    Encoding e = kCodings[data[0] & 3];
    std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
    DecodeLimits limits{.max_output = 256 * 1024, .max_ratio = 50, .ratio_grace = 4096};

    slipstream::base::Result<std::string> whole = decode(e, input, limits);
    if (whole.is_ok()) require(whole->size() <= limits.max_output);

    auto decoder = Decoder::create(e, limits);
    require(decoder.is_ok());
    std::size_t cut = input.empty() ? 0 : (data[0] >> 2) % (input.size() + 1);
    std::string out;
    slipstream::base::Status s = (*decoder)->write(input.substr(0, cut), out);
    if (s.is_ok()) s = (*decoder)->write(input.substr(cut), out);
    if (s.is_ok()) s = (*decoder)->finish();
    require(out.size() <= limits.max_output + 1);
    if (whole.is_ok() && s.is_ok()) require(out == *whole);
    return 0;
}
