// ProxyCall: the upstream's head (stream, JSON or an error), its SSE events, content fed to the validator, the events
// and the final verdict; refusals before streaming; cancel and back-pressure.
#include "agent/llm_proxy/proxy_call.h"

#include <algorithm>

#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::llm_proxy {
namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;

bool starts_with_ci(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        char a = s[i];
        if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
        if (a != prefix[i]) return false;
    }
    return true;
}

// The upstream's statuses a client should see as they are: its own request was at fault, or it is rate limited.
bool passed_through(int status) {
    return status == 400 || status == 404 || status == 409 || status == 413 || status == 422 || status == 429;
}

std::string json_string(std::string_view s) {
    std::string out;
    json::Writer w(out);
    w.string(s);
    return out;
}

}  // namespace

std::string failure_json(std::size_t offset, std::string_view pointer, std::string_view keyword,
                         std::string_view message) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("offset");
    w.uint64(offset);
    w.key("pointer");
    w.string(pointer);
    w.key("keyword");
    w.string(keyword);
    w.key("message");
    w.string(message);
    w.end_object();
    return out;
}

std::string error_body(std::string_view message, std::string_view type, std::string_view code, int upstream_status,
                       std::string_view upstream_error) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("error");
    w.begin_object();
    w.key("message");
    w.string(message);
    w.key("type");
    w.string(type);
    w.key("code");
    w.string(code);
    if (upstream_status != 0) {
        w.key("upstream_status");
        w.int64(upstream_status);
    }
    if (!upstream_error.empty()) {
        w.key("upstream_error");
        w.raw(upstream_error);
    }
    w.end_object();
    w.end_object();
    return out;
}

ProxyCall::ProxyCall(std::shared_ptr<const structured::CompiledSchema> schema, LlmCallOptions options,
                     LlmCallHandlers handlers, std::shared_ptr<ProxyCounters> counters)
    : schema_(std::move(schema)),
      options_(std::move(options)),
      handlers_(std::make_shared<LlmCallHandlers>(std::move(handlers))),
      counters_(std::move(counters)),
      validator_(std::make_unique<structured::StreamValidator>(schema_->document(), schema_->schema())),
      parser_(http::sse::EventParserLimits{.max_line_bytes = 1 << 20, .max_event_bytes = 4 << 20}) {}

ProxyCall::~ProxyCall() = default;

std::shared_ptr<store::http::SharedCall> ProxyCall::upstream() {
    std::lock_guard<std::mutex> lock(mutex_);
    return upstream_;
}

void ProxyCall::release() {
    done_.store(true, std::memory_order_release);
    if (counted_active_) {
        counted_active_ = false;
        counters_->active.fetch_sub(1);
    }
    // The handlers may hold what holds this call (a route's responder and its call handle): let them go.
    handlers_.reset();
}

void ProxyCall::send(store::http::SharedClient& client, store::http::Request request) {
    if (cancelled_.load()) {
        counters_->cancelled.fetch_add(1);
        release();
        return;
    }
    counters_->started.fetch_add(1);
    counters_->active.fetch_add(1);
    counted_active_ = true;
    auto self = shared_from_this();
    store::http::ResponseCallbacks cb;
    cb.on_head = [self](const store::http::ResponseHead& head) { self->on_head(head); };
    cb.on_data = [self](std::string_view data) { self->on_data(data); };
    cb.on_end = [self](base::Status status) { self->on_end(std::move(status)); };
    std::shared_ptr<store::http::SharedCall> call = client.start(std::move(request), std::move(cb));
    bool cancel = false;
    bool pause = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        upstream_ = call;
        cancel = cancelled_.load() || stop_pending_;
        pause = pause_pending_;
    }
    if (cancel) call->cancel();  // cancel() ran before the handle was stored
    if (pause) call->pause();
}

void ProxyCall::refuse_now(int status, std::string body) {
    counters_->refused.fetch_add(1);
    std::shared_ptr<LlmCallHandlers> h = std::move(handlers_);
    done_.store(true, std::memory_order_release);
    if (h && h->on_refused) h->on_refused(LlmRefusal{.status = status, .body = std::move(body), .retry_after = {}});
}

void ProxyCall::cancel() {
    if (cancelled_.exchange(true)) return;
    if (auto up = upstream()) up->cancel();  // else send() sees cancelled_ once it stored the handle
}

void ProxyCall::pause() {
    std::shared_ptr<store::http::SharedCall> up;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!upstream_) {
            pause_pending_ = true;
            return;
        }
        up = upstream_;
    }
    up->pause();
}

void ProxyCall::resume() {
    std::shared_ptr<store::http::SharedCall> up;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pause_pending_ = false;
        up = upstream_;
    }
    if (up) up->resume();
}

void ProxyCall::stop_upstream() {
    std::shared_ptr<store::http::SharedCall> up;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!upstream_) {
            // The answer came before send() stored the handle (the client's thread ran ahead): send() stops it.
            stop_pending_ = true;
            return;
        }
        up = upstream_;
    }
    up->cancel();
}

// ---- the upstream's answer ----

void ProxyCall::on_head(const store::http::ResponseHead& head) {
    if (done_.load() || cancelled_.load()) return;
    upstream_status_ = head.status;
    retry_after_ = std::string(head.header("retry-after"));
    if (head.status < 200 || head.status > 299) {
        phase_ = Phase::kErrorBody;  // read its body for the message, then refuse
        return;
    }
    std::string_view type = head.header("content-type");
    if (starts_with_ci(type, "text/event-stream")) {
        phase_ = Phase::kStream;
    } else if (starts_with_ci(type, "application/json")) {
        phase_ = Phase::kJson;
    } else {
        std::string what = "the upstream answered " + std::to_string(head.status) + " with content type '" +
                           std::string(type) + "', not an event stream";
        refuse(LlmRefusal{
            .status = 502, .body = error_body(what, "upstream_error", "upstream_bad_response"), .retry_after = {}});
        stop_upstream();
        return;
    }
    if (std::shared_ptr<LlmCallHandlers> h = handlers_; h && h->on_start) h->on_start();
}

void ProxyCall::on_data(std::string_view data) {
    if (done_.load() || cancelled_.load()) return;
    switch (phase_) {
        case Phase::kStream: {
            base::Status s = parser_.feed(data, *this);
            if (!s.is_ok() && !done_.load()) {
                // A line or event past the parser's limits.
                end_with_error("upstream", "the upstream's event stream is malformed: " + s.message(),
                               counters_->failed);
                stop_upstream();
            }
            return;
        }
        case Phase::kJson:
            if (body_.size() + data.size() > options_.max_output_bytes * 4 + kMaxErrorBody) {
                end_with_error("maxBytes", "the upstream's answer is larger than the output limit", counters_->invalid);
                stop_upstream();
                return;
            }
            body_.append(data);
            return;
        case Phase::kErrorBody:
            if (body_.size() < kMaxErrorBody) body_.append(data.substr(0, kMaxErrorBody - body_.size()));
            return;
        default:
            return;
    }
}

void ProxyCall::on_end(base::Status status) {
    if (done_.load()) return;  // we ended it (the verdict came first)
    if (cancelled_.load()) {
        counters_->cancelled.fetch_add(1);
        release();
        return;
    }
    switch (phase_) {
        case Phase::kHead: {
            const bool timeout = status.is_timeout();
            const bool busy = status.is_resource_exhausted();
            std::string what = "the upstream failed: " + status.message();
            refuse(LlmRefusal{.status = timeout ? 504
                                        : busy  ? 503
                                                : 502,
                              .body = error_body(what, "upstream_error",
                                                 timeout ? "upstream_timeout"
                                                 : busy  ? "upstream_busy"
                                                         : "upstream_unavailable"),
                              .retry_after = busy ? "1" : ""});
            return;
        }
        case Phase::kErrorBody: {
            // The upstream's own error object when it sent one ({"error": {...}}), else its text.
            std::string upstream_error;
            std::string message;
            base::Arena arena;
            auto parsed = json::parse(body_, arena);
            if (parsed.is_ok() && (*parsed)->is_object()) {
                if (const json::Value* e = (*parsed)->find("error"); e != nullptr) {
                    json::Writer w(upstream_error);
                    (void)w.write_value(*e).is_ok();
                    if (e->is_object()) {
                        if (const json::Value* m = e->find("message"); m != nullptr && m->is_string())
                            message = std::string(m->as_string());
                    } else if (e->is_string()) {
                        message = std::string(e->as_string());
                    }
                }
                if (const json::Value* d = (*parsed)->find("detail"); message.empty() && d != nullptr && d->is_string())
                    message = std::string(d->as_string());
            }
            if (message.empty()) message = body_.substr(0, 512);
            std::string what = "the upstream answered " + std::to_string(upstream_status_) +
                               (message.empty() ? std::string() : ": " + message);
            int status_out = passed_through(upstream_status_) ? upstream_status_ : 502;
            refuse(LlmRefusal{
                .status = status_out,
                .body = error_body(what, "upstream_error", "upstream_status", upstream_status_, upstream_error),
                .retry_after = retry_after_});
            return;
        }
        case Phase::kJson:
            if (!status.is_ok()) {
                end_with_error("upstream", "the upstream's answer was cut: " + status.message(), counters_->failed);
                return;
            }
            take_object(body_, true);
            if (!done_.load()) finish_document();
            return;
        case Phase::kStream: {
            if (!status.is_ok()) {
                end_with_error("upstream", "the upstream's stream failed: " + status.message(), counters_->failed);
                return;
            }
            bool dropped = false;
            base::Status s = parser_.finish(*this, &dropped);
            if (done_.load()) return;
            if (!s.is_ok()) {
                end_with_error("upstream", "the upstream's event stream is malformed: " + s.message(),
                               counters_->failed);
                return;
            }
            // The stream ended cleanly without "[DONE]": the document decides (complete and valid, or not).
            finish_document();
            return;
        }
        case Phase::kDone:
            return;
    }
}

base::Status ProxyCall::on_event(const http::sse::ParsedEvent& event) {
    if (done_.load() || cancelled_.load()) return base::Status::cancelled("done");
    if (event.data == "[DONE]") {
        saw_done_ = true;
        finish_document();
        return base::Status::cancelled("done");  // nothing after [DONE] matters; the body is drained for reuse
    }
    if (event.type == "error") {
        end_with_error("upstream", "the upstream sent an error event: " + std::string(event.data.substr(0, 512)),
                       counters_->failed);
        stop_upstream();
        return base::Status::cancelled("done");
    }
    take_object(event.data, false);
    if (done_.load()) return base::Status::cancelled("done");
    return base::Status::ok();
}

void ProxyCall::take_object(std::string_view json_text, bool whole) {
    arena_.reset();
    json::ParseError error;
    auto parsed = json::parse(json_text, arena_, {}, &error);
    if (!parsed.is_ok() || !(*parsed)->is_object()) {
        end_with_error("upstream",
                       std::string(whole ? "the upstream's answer" : "an upstream event") + " is not a JSON object" +
                           (parsed.is_ok() ? std::string() : ": " + error.message),
                       counters_->failed);
        stop_upstream();
        return;
    }
    const json::Value& obj = **parsed;
    if (const json::Value* e = obj.find("error"); e != nullptr && !e->is_null()) {
        std::string message;
        if (e->is_object()) {
            if (const json::Value* m = e->find("message"); m != nullptr && m->is_string()) message = m->as_string();
        } else if (e->is_string()) {
            message = e->as_string();
        }
        end_with_error("upstream", "the upstream reported an error: " + (message.empty() ? "(no message)" : message),
                       counters_->failed);
        stop_upstream();
        return;
    }
    // Token usage (the last chunk when the request asked for stream_options.include_usage; a whole answer's own).
    if (const json::Value* usage = obj.find("usage"); usage != nullptr && usage->is_object()) {
        scratch_.clear();
        json::Writer w(scratch_);
        if (w.write_value(*usage).is_ok()) emit("usage", scratch_);
    }
    const json::Value* choices = obj.find("choices");
    if (choices == nullptr || !choices->is_array() || choices->size() == 0) return;  // e.g. a usage-only chunk
    const json::Value* choice = nullptr;
    for (const json::Value& c : choices->items()) {
        const json::Value* index = c.is_object() ? c.find("index") : nullptr;
        if (index == nullptr || (index->is_integer() && index->as_int() == 0)) {
            choice = &c;
            break;
        }
    }
    if (choice == nullptr || !choice->is_object()) return;
    if (const json::Value* fr = choice->find("finish_reason"); fr != nullptr && fr->is_string())
        finish_reason_ = std::string(fr->as_string());
    const json::Value* part = choice->find(whole ? "message" : "delta");
    if (part == nullptr || !part->is_object()) return;
    if (const json::Value* refusal = part->find("refusal");
        refusal != nullptr && refusal->is_string() && refusal->size() > 0) {
        end_with_error("refusal", "the model refused: " + std::string(refusal->as_string()), counters_->invalid);
        stop_upstream();
        return;
    }
    if (const json::Value* calls = part->find("tool_calls"); calls != nullptr && tools_ && tools_->active()) {
        if (std::optional<structured::SchemaFailure> f = tools_->take(*calls)) {
            tool_failure(*f);
            return;
        }
    }
    if (const json::Value* content = part->find("content"); content != nullptr && content->is_string())
        feed(content->as_string());
}

void ProxyCall::tool_failure(const structured::SchemaFailure& f) {
    end_with("error", failure_json(f.offset, f.pointer, f.keyword, f.message), counters_->invalid);
    stop_upstream();  // the call cannot be made with these arguments: stop generating them
}

void ProxyCall::feed(std::string_view piece) {
    if (piece.empty() || done_.load()) return;
    if (fed_ + piece.size() > options_.max_output_bytes) {
        end_with_error("maxBytes", "the output is longer than " + std::to_string(options_.max_output_bytes) + " bytes",
                       counters_->invalid);
        stop_upstream();
        return;
    }
    fed_ += piece.size();
    structured::StreamState state = validator_->feed(piece);
    if (state == structured::StreamState::kInvalid) {
        const structured::SchemaFailure& f = validator_->failure();
        std::string json = failure_json(f.offset, f.pointer, f.keyword, f.message);
        end_with("error", std::move(json), counters_->invalid);
        stop_upstream();  // the output cannot satisfy the schema any more: stop generating it
        return;
    }
    if (options_.events == StructuredEvents::kDelta) {
        emit("delta", json_string(piece));
        return;
    }
    scratch_.clear();
    if (validator_->snapshot_json(scratch_)) emit("partial", scratch_);
}

void ProxyCall::finish_document() {
    if (done_.load()) return;
    // The model called tools: each call's arguments must be complete and valid, and the calls are the final event
    // (with the document under "content" when there was content too, valid).
    std::string calls;
    const bool tool_calls = tools_ && tools_->any();
    if (tool_calls) {
        if (std::optional<structured::SchemaFailure> f = tools_->finish(calls)) {
            end_with("error", failure_json(f->offset, f->pointer, f->keyword, f->message), counters_->invalid);
            return;
        }
        if (fed_ == 0) {
            end_with("tool_calls", std::move(calls), counters_->completed);
            return;
        }
    }
    structured::StreamState state = validator_->finish();
    if (state == structured::StreamState::kComplete) {
        std::string doc;
        validator_->snapshot_json(doc);
        if (tool_calls) {
            calls.pop_back();  // the closing brace
            calls.append(",\"content\":").append(doc).append("}");
            end_with("tool_calls", std::move(calls), counters_->completed);
            return;
        }
        end_with("complete", std::move(doc), counters_->completed);
        return;
    }
    structured::SchemaFailure f = validator_->failure();
    if (!finish_reason_.empty() && finish_reason_ != "stop" && fed_ == f.offset)
        f.message += " (the upstream stopped with finish_reason '" + finish_reason_ + "')";
    if (fed_ == 0 && f.keyword == "json") f.message = "the upstream sent no content";
    end_with("error", failure_json(f.offset, f.pointer, f.keyword, f.message), counters_->invalid);
}

void ProxyCall::emit(std::string_view kind, std::string_view json) {
    std::shared_ptr<LlmCallHandlers> h = handlers_;
    if (cancelled_.load() || !h || !h->on_event) return;
    h->on_event(LlmStreamEvent{.kind = kind, .json = json});
}

void ProxyCall::end_with(std::string_view kind, std::string json, std::atomic<std::uint64_t>& counter) {
    if (done_.load()) return;
    counter.fetch_add(1);
    phase_ = Phase::kDone;
    std::shared_ptr<LlmCallHandlers> h = std::move(handlers_);
    release();
    if (!cancelled_.load() && h && h->on_event) h->on_event(LlmStreamEvent{.kind = kind, .json = json});
}

void ProxyCall::end_with_error(std::string_view keyword, std::string_view message, std::atomic<std::uint64_t>& counter,
                               std::string_view pointer) {
    end_with("error", failure_json(fed_, pointer, keyword, message), counter);
}

void ProxyCall::refuse(LlmRefusal refusal) {
    if (done_.load()) return;
    counters_->refused.fetch_add(1);
    phase_ = Phase::kDone;
    std::shared_ptr<LlmCallHandlers> h = std::move(handlers_);
    release();
    if (!cancelled_.load() && h && h->on_refused) h->on_refused(refusal);
}

}  // namespace slipstream::agent::llm_proxy
