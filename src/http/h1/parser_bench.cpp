// Micro-benchmarks of parse_request and ChunkedDecoder on typical requests.
#include <benchmark/benchmark.h>

#include <array>
#include <string>

#include "http/h1/chunked_decoder.h"
#include "http/h1/parser.h"

namespace {

using namespace slipstream::http::h1;

// What wrk sends: the request the server's hello benchmark is measured with.
const std::string kWrkGet = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:18101\r\n\r\n";

const std::string kSmallGet = "GET /users/42?fields=name HTTP/1.1\r\nHost: api.example.com\r\nAccept: */*\r\n\r\n";

// An API client (curl or an SDK) with 9 fields.
const std::string kApiGet =
    "GET /api/v1/users/42?include=profile&limit=10 HTTP/1.1\r\n"
    "Host: api.example.com\r\n"
    "User-Agent: curl/8.5.0\r\n"
    "Accept: application/json\r\n"
    "Accept-Encoding: gzip, deflate, br\r\n"
    "Accept-Language: en-US,en;q=0.9\r\n"
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl\r\n"
    "X-Request-Id: 7f3c2a9e-1b4d-4e8f-9a6b-0c1d2e3f4a5b\r\n"
    "Connection: keep-alive\r\n"
    "Cookie: session=0123456789abcdef; theme=dark\r\n"
    "\r\n";

const std::string kBrowserGet =
    "GET /static/app.js?v=20240101 HTTP/1.1\r\n"
    "Host: www.example.com\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0\r\n"
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n"
    "Accept-Language: en-US,en;q=0.5\r\n"
    "Accept-Encoding: gzip, deflate, br\r\n"
    "Referer: https://www.example.com/index.html\r\n"
    "Connection: keep-alive\r\n"
    "Cookie: session=0123456789abcdef0123456789abcdef; theme=dark; lang=en\r\n"
    "Upgrade-Insecure-Requests: 1\r\n"
    "Cache-Control: max-age=0\r\n"
    "\r\n";

const std::string kChunkedPost =
    "POST /v1/items HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/json\r\n"
    "Transfer-Encoding: chunked\r\n\r\n"
    "1a\r\n{\"name\":\"widget\",\"count\":1\r\n"
    "1b\r\n,\"tags\":[\"a\",\"b\"],\"ok\":true}\r\n"
    "0\r\n\r\n";

void parse_head(benchmark::State& state, const std::string& request) {
    const Limits limits;
    std::array<Header, 100> headers;
    RequestHead head;
    for (auto _ : state) {
        ParseStatus st = parse_request(request, limits, &head, headers.data(), headers.size());
        benchmark::DoNotOptimize(st);
        benchmark::DoNotOptimize(head);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * request.size()));
}

void BM_WrkGet(benchmark::State& state) {
    parse_head(state, kWrkGet);
}
void BM_SmallGet(benchmark::State& state) {
    parse_head(state, kSmallGet);
}
void BM_ApiGet(benchmark::State& state) {
    parse_head(state, kApiGet);
}
void BM_BrowserGet(benchmark::State& state) {
    parse_head(state, kBrowserGet);
}

void BM_ChunkedPost(benchmark::State& state) {
    const Limits limits;
    std::array<Header, 100> headers;
    RequestHead head;
    for (auto _ : state) {
        const ParseStatus st = parse_request(kChunkedPost, limits, &head, headers.data(), headers.size());
        std::string_view body = std::string_view(kChunkedPost).substr(st.consumed);
        ChunkedDecoder dec(limits);
        std::size_t total = 0;
        for (;;) {
            const ChunkedDecoder::Step step = dec.decode(body);
            body.remove_prefix(step.consumed);
            if (step.event != ChunkedDecoder::Event::kData) break;
            total += step.data.size();
        }
        benchmark::DoNotOptimize(total);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kChunkedPost.size()));
}

BENCHMARK(BM_WrkGet);
BENCHMARK(BM_SmallGet);
BENCHMARK(BM_ApiGet);
BENCHMARK(BM_BrowserGet);
BENCHMARK(BM_ChunkedPost);

}  // namespace

BENCHMARK_MAIN();
