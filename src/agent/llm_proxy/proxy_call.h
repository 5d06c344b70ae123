// ProxyCall: one upstream chat completion whose streamed content is validated against a JSON Schema as it arrives.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "agent/llm_proxy/tool_calls.h"
#include "agent/structured/compiled_schema.h"
#include "agent/structured/stream_validator.h"
#include "base/arena.h"
#include "base/status.h"
#include "http/sse/event_parser.h"
#include "slipstream/llm_proxy.h"
#include "store/http/shared_client.h"

namespace slipstream::agent::llm_proxy {

/// A proxy's counters (LlmProxyStats), shared by its calls.
struct ProxyCounters {
    std::atomic<std::uint64_t> started{0};
    std::atomic<std::uint64_t> refused{0};
    std::atomic<std::uint64_t> completed{0};
    std::atomic<std::uint64_t> invalid{0};
    std::atomic<std::uint64_t> failed{0};
    std::atomic<std::uint64_t> cancelled{0};
    std::atomic<std::uint64_t> active{0};
};

/// The error event's payload: {"offset":N,"pointer":"...","keyword":"...","message":"..."}.
std::string failure_json(std::size_t offset, std::string_view pointer, std::string_view keyword,
                         std::string_view message);
/// An OpenAI-style error body: {"error":{"message","type","code"[,"upstream_status","upstream_error"]}}.
/// `upstream_error` (raw JSON, or empty) is the upstream's own error object.
std::string error_body(std::string_view message, std::string_view type, std::string_view code, int upstream_status = 0,
                       std::string_view upstream_error = {});

/// Reads the upstream's answer (an SSE stream of chat.completion.chunk objects, or one chat.completion object when
/// the upstream ignored "stream"), feeds `choices[0].delta.content` (`message.content`) to a StreamValidator and tells
/// the handlers what LlmCallHandlers promises. Its upstream callbacks run on the client's thread; cancel, pause and
/// resume may come from any thread.
class ProxyCall : public std::enable_shared_from_this<ProxyCall>, private http::sse::EventSink {
  public:
    ProxyCall(std::shared_ptr<const structured::CompiledSchema> schema, LlmCallOptions options,
              LlmCallHandlers handlers, std::shared_ptr<ProxyCounters> counters);
    ~ProxyCall();

    /// The request named tools: their calls' arguments are validated as they stream (before send()).
    void set_tools(ToolSchemas tools) { tools_ = std::make_unique<ToolCallStreams>(std::move(tools)); }
    /// Sends `request` through `client` (any thread).
    void send(store::http::SharedClient& client, store::http::Request request);
    /// Ends the call before sending it: on_refused now, on this thread.
    void refuse_now(int status, std::string body);

    void cancel();
    void pause();
    void resume();
    bool done() const { return done_.load(std::memory_order_acquire) || cancelled_.load(std::memory_order_acquire); }

  private:
    enum class Phase : std::uint8_t { kHead, kStream, kJson, kErrorBody, kDone };

    // Upstream callbacks (client thread).
    void on_head(const store::http::ResponseHead& head);
    void on_data(std::string_view data);
    void on_end(base::Status status);
    // EventSink: one SSE event of the upstream.
    base::Status on_event(const http::sse::ParsedEvent& event) override;

    // One chat.completion(.chunk) object: the content it carries, a refusal, an error, the finish reason.
    void take_object(std::string_view json_text, bool whole);
    void feed(std::string_view piece);
    // A tool call's arguments cannot be valid (or named no tool): the error event, the upstream cut.
    void tool_failure(const structured::SchemaFailure& f);
    void finish_document();
    void emit(std::string_view kind, std::string_view json);
    // The final event (complete or error), then the handlers are let go.
    void end_with(std::string_view kind, std::string json, std::atomic<std::uint64_t>& counter);
    void end_with_error(std::string_view keyword, std::string_view message, std::atomic<std::uint64_t>& counter,
                        std::string_view pointer = {});
    void refuse(LlmRefusal refusal);
    void stop_upstream();
    std::shared_ptr<store::http::SharedCall> upstream();
    void release();

    std::shared_ptr<const structured::CompiledSchema> schema_;
    LlmCallOptions options_;
    // Client thread (after send). Shared so that a handler running while the call ends (a cancel from inside it)
    // keeps itself alive until it returns.
    std::shared_ptr<LlmCallHandlers> handlers_;
    std::shared_ptr<ProxyCounters> counters_;
    std::unique_ptr<structured::StreamValidator> validator_;
    std::unique_ptr<ToolCallStreams> tools_;
    http::sse::EventParser parser_;
    base::Arena arena_;  // each upstream object is parsed here
    Phase phase_ = Phase::kHead;
    int upstream_status_ = 0;
    std::string retry_after_;
    std::string body_;  // kJson: the whole answer; kErrorBody: its first bytes
    std::size_t fed_ = 0;
    std::string finish_reason_;
    std::string scratch_;
    bool saw_done_ = false;

    std::mutex mutex_;  // guards upstream_ (set on the sending thread, read on the client's)
    std::shared_ptr<store::http::SharedCall> upstream_;
    bool pause_pending_ = false;  // guarded by mutex_: pause() before the upstream call existed
    bool stop_pending_ = false;   // guarded by mutex_: the call ended (a verdict) before the handle was stored
    std::atomic<bool> cancelled_{false};
    std::atomic<bool> done_{false};
    bool counted_active_ = false;
};

}  // namespace slipstream::agent::llm_proxy
