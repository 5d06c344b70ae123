// CompletionJob: one OpenAI completion request in flight: its choices in the scheduler, text, stops, the answer.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/infer/infer_metrics.h"
#include "agent/infer/inference_engine.h"
#include "agent/infer/openai_request.h"
#include "agent/infer/stop_matcher.h"
#include "json/writer.h"
#include "slipstream/responder.h"

namespace slipstream::agent::infer {

/// Renders the prompt(s), submits one scheduler request per prompt with its n choices as forks, and answers: one JSON
/// body when every choice finished, or SSE chunks as tokens arrive ("data: {...}\n\n", then "data: [DONE]\n\n"), in
/// OpenAI's shapes (chat.completion / chat.completion.chunk / text_completion). Scheduler events arrive on its step
/// thread; a client that leaves cancels every choice. Held by shared_ptr from the event callbacks.
class CompletionJob : public std::enable_shared_from_this<CompletionJob> {
  public:
    /// metrics: null when the App registered none for this model.
    static void start(InferenceEngine& engine, CompletionRequest request, Responder responder,
                      std::shared_ptr<const InferMetrics> metrics);

  private:
    struct LogprobEntry {
        std::string token;  // the token's bytes (not necessarily whole UTF-8 characters)
        float logprob = 0;
        std::vector<std::pair<std::string, float>> top;
    };
    struct Choice {
        int index = 0;
        int32_t fork = 0;  // of the prompt's scheduler request (the choice's place among the prompt's n)
        std::vector<int32_t> prompt;
        std::string prompt_text;      // echo
        std::atomic<uint64_t> id{0};  // the prompt's scheduler request, once submitted
        std::atomic<bool> stop_requested{false};
        std::unique_ptr<StopMatcher> matcher;
        std::string text;
        std::vector<LogprobEntry> logprobs;
        int64_t completion_tokens = 0;
        int64_t cached_tokens = 0;
        bool finished = false;
        bool started = false;  // the stream sent this choice's first chunk
        double ttft = -1;      // seconds to the first token, once it came
        std::string finish_reason;
        std::unique_ptr<StopMatcher> tool_gate;  // tool_choice auto, streaming: holds text from "<tool_call>" on
        std::string raw;                         // streaming with tools: everything generated, for the parser
        std::vector<ToolCall> calls;
    };

    CompletionJob(InferenceEngine& engine, CompletionRequest request, Responder responder,
                  std::shared_ptr<const InferMetrics> metrics);
    void observe(Choice& c, const GenerationEvent& ev);
    void submit_all();
    void on_event(Choice& c, const GenerationEvent& event);
    void emit(Choice& c, std::string_view text, std::vector<LogprobEntry> logprobs);
    void finish(Choice& c, std::string reason);
    void send_complete();
    void write_chunk(const Choice& c, std::string_view text, const std::vector<LogprobEntry>& logprobs,
                     const std::string* finish_reason);
    void write_usage_chunk();
    void write_head(json::Writer& w, std::string_view object) const;  // opens the object: id, object, created...
    void write_usage(json::Writer& w) const;
    void write_logprobs(std::string& out, const std::vector<LogprobEntry>& entries, int64_t text_offset) const;
    void fail(const OpenAIError& error);
    bool forced_call() const { return request_.tool_choice == "required" || request_.tool_choice == "function"; }
    void take_tool_calls(Choice& c);
    void write_tool_calls(json::Writer& w, const Choice& c, bool delta) const;
    void write_tool_calls_chunk(const Choice& c);

    InferenceEngine& engine_;
    std::shared_ptr<const InferMetrics> metrics_;
    CompletionRequest request_;
    Responder responder_;
    std::mutex mu_;
    std::vector<std::unique_ptr<Choice>> choices_;
    std::string id_;
    int64_t created_ = 0;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    int64_t prompt_tokens_ = 0;
    int unfinished_ = 0;
    bool answered_ = false;
    std::atomic<bool> client_left_{false};
};

}  // namespace slipstream::agent::infer
