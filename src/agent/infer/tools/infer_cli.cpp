// slipstream-infer: a model file from the command line: logits, tokens, greedy or sampled generation.
//
//   slipstream-infer logits MODEL [--all] [--chunk N] TOKEN...   logits of the last (or every) position, JSON
//   slipstream-infer tokenize MODEL TEXT                         token ids, JSON
//   slipstream-infer generate MODEL PROMPT [--max-tokens N] [--temperature T] [--seed S]
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "agent/infer/inference_engine.h"

namespace infer = slipstream::agent::infer;

namespace {

int usage() {
    std::fprintf(stderr,
                 "usage: slipstream-infer logits MODEL [--all] [--chunk N] TOKEN...\n"
                 "       slipstream-infer tokenize MODEL TEXT\n"
                 "       slipstream-infer generate MODEL PROMPT [--max-tokens N] [--temperature T] [--seed S]\n");
    return 2;
}

void print_floats(const float* v, int64_t n) {
    std::printf("[");
    for (int64_t i = 0; i < n; ++i)
        std::printf(i ? ",%.9g" : "%.9g", static_cast<double>(v[i]));
    std::printf("]");
}

// Runs the tokens through the model in chunks of `chunk` (one sequence, blocks 0..k), printing logits.
int logits(infer::LlamaModel& model, const std::vector<int32_t>& tokens, bool all, int64_t chunk) {
    const int64_t n = static_cast<int64_t>(tokens.size()), bs = model.block_size();
    if (n == 0 || n > model.max_context() || (n + bs - 1) / bs > model.num_blocks()) {
        std::fprintf(stderr, "slipstream-infer: %lld tokens do not fit the context\n", static_cast<long long>(n));
        return 2;
    }
    std::vector<int32_t> table;
    for (int32_t b = 0; b < (n + bs - 1) / bs; ++b)
        table.push_back(b);
    const int64_t vocab = model.vocab_size();
    std::vector<float> out(static_cast<std::size_t>(n * vocab));
    int64_t done = 0;
    while (done < n) {
        const int64_t len = std::min(chunk, n - done);
        infer::BatchEntry e;
        e.tokens = std::span<const int32_t>(tokens.data() + done, static_cast<std::size_t>(len));
        e.start_pos = done;
        e.block_table = table;
        e.n_logits = all ? len : (done + len == n ? 1 : 0);
        model.forward(std::span<const infer::BatchEntry>(&e, 1), out.data() + (all ? done * vocab : 0));
        done += len;
    }
    if (!all) {
        print_floats(out.data(), vocab);
    } else {
        std::printf("[");
        for (int64_t t = 0; t < n; ++t) {
            if (t) std::printf(",");
            print_floats(out.data() + t * vocab, vocab);
        }
        std::printf("]");
    }
    std::printf("\n");
    return 0;
}

int generate(infer::InferenceEngine& engine, const std::string& prompt, infer::SamplingParams params) {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::string text;
    infer::GenerationRequest g;
    g.prompt = engine.tokenizer().encode(prompt, engine.tokenizer().add_bos_default(), false);
    params.stop_tokens = engine.tokenizer().stop_tokens();
    g.sampling = params;
    g.on_event = [&](const infer::GenerationEvent& ev) {
        std::lock_guard lock(mu);
        for (const auto& t : ev.tokens)
            text += engine.tokenizer().decode(t.token);
        if (ev.finished) {
            done = true;
            cv.notify_all();
        }
    };
    auto id = engine.scheduler().submit(std::move(g));
    if (!id.is_ok()) {
        std::fprintf(stderr, "slipstream-infer: %s\n", id.status().message().c_str());
        return 1;
    }
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done; });
    std::printf("%s\n", text.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) return usage();
    const std::string command = argv[1], path = argv[2];
    infer::EngineOptions options;
    options.model.kv_cache_bytes = int64_t{64} << 20;
    if (const char* t = std::getenv("SLIPSTREAM_INFER_THREADS")) options.model.threads = std::atoi(t);
    auto engine = infer::InferenceEngine::open(path, options);
    if (!engine.is_ok()) {
        std::fprintf(stderr, "slipstream-infer: %s\n", engine.status().message().c_str());
        return 1;
    }
    if (command == "tokenize") {
        auto ids = (*engine)->tokenizer().encode(argv[3], (*engine)->tokenizer().add_bos_default(), false);
        std::printf("[");
        for (std::size_t i = 0; i < ids.size(); ++i)
            std::printf(i ? ",%d" : "%d", ids[i]);
        std::printf("]\n");
        return 0;
    }
    if (command == "logits") {
        (*engine)->scheduler().stop();  // this command drives the model itself
        bool all = false;
        int64_t chunk = 1 << 30;
        std::vector<int32_t> tokens;
        for (int i = 3; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--all") {
                all = true;
            } else if (a == "--chunk" && i + 1 < argc) {
                chunk = std::max(1, std::atoi(argv[++i]));
            } else {
                tokens.push_back(std::atoi(a.c_str()));
            }
        }
        return logits((*engine)->model(), tokens, all, chunk);
    }
    if (command == "generate") {
        infer::SamplingParams params;
        params.temperature = 0;
        params.max_tokens = 32;
        for (int i = 4; i + 1 < argc; i += 2) {
            const std::string a = argv[i];
            if (a == "--max-tokens")
                params.max_tokens = std::atoll(argv[i + 1]);
            else if (a == "--temperature")
                params.temperature = std::strtof(argv[i + 1], nullptr);
            else if (a == "--seed")
                params.seed = std::strtoull(argv[i + 1], nullptr, 10), params.has_seed = true;
            else
                return usage();
        }
        return generate(**engine, argv[3], params);
    }
    return usage();
}
