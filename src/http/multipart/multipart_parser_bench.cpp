// Micro-benchmarks: MultipartParser over a 1 MiB file part plus fields; UrlencodedParser over 100 pairs.
#include <benchmark/benchmark.h>

#include <string>

#include "http/multipart/multipart_parser.h"
#include "http/multipart/urlencoded_parser.h"

namespace {

using namespace slipstream;
using namespace slipstream::http::multipart;

class CountingSink : public PartSink, public FieldSink {
  public:
    base::Status on_part_begin(const PartHead&) override { return base::Status::ok(); }
    base::Status on_part_data(std::string_view d) override {
        bytes += d.size();
        return base::Status::ok();
    }
    base::Status on_part_end() override { return base::Status::ok(); }
    base::Status on_field(std::string_view n, std::string_view v) override {
        bytes += n.size() + v.size();
        return base::Status::ok();
    }
    std::size_t bytes = 0;
};

std::string multipart_body(std::size_t file_bytes) {
    std::string body;
    for (int i = 0; i < 20; ++i)
        body += "--bench\r\nContent-Disposition: form-data; name=\"f" + std::to_string(i) + "\"\r\n\r\nvalue\r\n";
    body +=
        "--bench\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\n";
    for (std::size_t i = 0; i < file_bytes; ++i)
        body.push_back(static_cast<char>((i * 131) & 0xff));  // binary: a CR every 256 bytes on average
    return body + "\r\n--bench--\r\n";
}

void BM_Multipart1MiB(benchmark::State& state) {
    const std::string body = multipart_body(1 << 20);
    for (auto _ : state) {
        CountingSink sink;
        MultipartParser parser("bench", {}, sink);
        benchmark::DoNotOptimize(parser.feed(body).is_ok() && parser.finish().is_ok());
        benchmark::DoNotOptimize(sink.bytes);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_Multipart1MiB);

void BM_Urlencoded100(benchmark::State& state) {
    std::string body;
    for (int i = 0; i < 100; ++i)
        body += "field" + std::to_string(i) + "=some+value%21&";
    for (auto _ : state) {
        CountingSink sink;
        UrlencodedParser parser({}, sink);
        benchmark::DoNotOptimize(parser.feed(body).is_ok() && parser.finish().is_ok());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_Urlencoded100);

}  // namespace

BENCHMARK_MAIN();
