// One completion request: prompts rendered and submitted, tokens turned into text, OpenAI's JSON and SSE shapes.
#include "agent/infer/completion_job.h"

#include <algorithm>
#include <chrono>

#include "agent/infer/json_constraint.h"
#include "agent/infer/random_id.h"
#include "json/utf8.h"
#include "json/writer.h"

namespace slipstream::agent::infer {

namespace {

// Invalid UTF-8 (a random model's stray bytes, a token cut inside a character) becomes U+FFFD.
std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = json::detail::utf8_sequence_length(s, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
    return out;
}

const char* reason_text(FinishReason r) {
    switch (r) {
        case FinishReason::kNone:
        case FinishReason::kStop:
            return "stop";
        case FinishReason::kLength:
            return "length";
        case FinishReason::kDeadline:
            return "length";
        case FinishReason::kCancelled:
            return "abort";
        case FinishReason::kError:
            return "error";
    }
    return "stop";
}

}  // namespace

CompletionJob::CompletionJob(InferenceEngine& engine, CompletionRequest request, Responder responder,
                             std::shared_ptr<const InferMetrics> metrics)
    : engine_(engine), metrics_(std::move(metrics)), request_(std::move(request)), responder_(std::move(responder)) {
    id_ = random_id(request_.chat ? "chatcmpl-" : "cmpl-");
    created_ =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void CompletionJob::start(InferenceEngine& engine, CompletionRequest request, Responder responder,
                          std::shared_ptr<const InferMetrics> metrics) {
    std::shared_ptr<CompletionJob> job(
        new CompletionJob(engine, std::move(request), std::move(responder), std::move(metrics)));
    // Rendering and tokenizing a long prompt takes milliseconds: not on the I/O thread.
    if (!engine.prepare([job] { job->submit_all(); }).is_ok())
        job->fail(OpenAIError{503, "The server is overloaded: too many requests are waiting to be prepared.",
                              "server_error", "", ""});
}

void CompletionJob::fail(const OpenAIError& error) {
    answered_ = true;
    for (auto& c : choices_)
        if (uint64_t id = c->id.load(); id != 0) engine_.scheduler().cancel(id, c->fork);
    responder_.send(error.response());
}

void CompletionJob::submit_all() {
    const Tokenizer& tok = engine_.tokenizer();
    const int64_t context = engine_.model().max_context();
    // Prompts: one rendered chat, or each completion prompt (text or token ids); each times n.
    std::vector<std::pair<std::vector<int32_t>, std::string>> prompts;
    if (request_.chat) {
        const std::string text = engine_.chat_template().apply(request_.messages, true);
        prompts.emplace_back(tok.encode(text, tok.add_bos_default(), true), std::string());
    } else {
        for (const std::string& p : request_.prompts)
            prompts.emplace_back(tok.encode(p, tok.add_bos_default(), false), p);
        for (auto& ids : request_.token_prompts) {
            std::string text;
            for (int32_t t : ids)
                text += tok.decode(t);
            prompts.emplace_back(std::move(ids), std::move(text));
        }
    }
    SamplingParams& s = request_.sampling;
    for (const auto& [ids, text] : prompts) {
        prompt_tokens_ += static_cast<int64_t>(ids.size());
        const int64_t room = context - static_cast<int64_t>(ids.size());
        if (room < 1 || (s.max_tokens > 0 && s.max_tokens > room)) {
            OpenAIError e;
            e.message = "This model's maximum context length is " + std::to_string(context) +
                        " tokens. However, you requested " +
                        std::to_string(static_cast<int64_t>(ids.size()) + std::max<int64_t>(s.max_tokens, 1)) +
                        " tokens (" + std::to_string(ids.size()) + " in the prompt, " +
                        std::to_string(std::max<int64_t>(s.max_tokens, 1)) +
                        " in the completion). Please reduce the prompt or the completion length.";
            e.param = request_.chat ? "messages" : "prompt";
            e.code = "context_length_exceeded";
            fail(e);
            return;
        }
    }
    if (s.stop_tokens.empty()) s.stop_tokens = tok.stop_tokens();
    for (const auto& [ids, text] : prompts) {
        for (int i = 0; i < request_.n; ++i) {
            auto c = std::make_unique<Choice>();
            c->index = static_cast<int>(choices_.size());
            c->fork = i;
            c->prompt = ids;
            c->prompt_text = text;
            auto matcher = StopMatcher::create(request_.stop);
            if (!matcher.is_ok()) {
                fail(OpenAIError{400, std::string(matcher.status().message()), "invalid_request_error", "stop", ""});
                return;
            }
            c->matcher = std::make_unique<StopMatcher>(std::move(matcher).value());
            if (request_.tool_choice == "auto")
                c->tool_gate = std::make_unique<StopMatcher>(StopMatcher::create({std::string(kToolCallOpen)}).value());
            choices_.push_back(std::move(c));
        }
    }
    unfinished_ = static_cast<int>(choices_.size());

    // A client that leaves cancels what was submitted; what is submitted after it left is cancelled at once
    // (client_left_ is set first, ids are stored before the flag is read again).
    std::weak_ptr<CompletionJob> weak = weak_from_this();
    responder_.on_cancel([weak] {
        if (auto job = weak.lock()) {
            job->client_left_.store(true);
            for (auto& c : job->choices_)
                if (uint64_t id = c->id.load(); id != 0) job->engine_.scheduler().cancel(id, c->fork);
        }
    });
    if (request_.stream) {
        Response head;
        head.status = 200;
        head.content_type = "text/event-stream";
        head.headers.emplace_back("Cache-Control", "no-cache");
        responder_.start_stream(std::move(head));
        for (auto& c : choices_) {
            std::string echo = request_.echo ? c->prompt_text : std::string();
            write_chunk(*c, echo, {}, nullptr);
            c->started = true;
        }
    }
    // One scheduler request per prompt, its n choices as forks (the prompt is prefilled once): fork i is choice
    // first + i and samples with seed + first + i.
    const int n = request_.n;
    for (size_t first = 0; first < choices_.size(); first += static_cast<size_t>(n)) {
        const Choice& lead = *choices_[first];
        GenerationRequest g;
        g.prompt = lead.prompt;
        g.sampling = s;
        g.n = n;
        if (s.has_seed) g.sampling.seed = s.seed + static_cast<uint64_t>(lead.index);
        if (g.sampling.max_tokens <= 0) g.sampling.max_tokens = context - static_cast<int64_t>(lead.prompt.size());
        g.priority = request_.priority;
        if (request_.deadline_ms > 0) g.deadline = started_ + std::chrono::milliseconds(request_.deadline_ms);
        if (request_.response_schema)
            g.constraint = std::make_shared<JsonConstraint>(engine_.token_bytes(), request_.response_schema,
                                                            engine_.mask_cache(request_.response_schema));
        auto self = shared_from_this();
        g.on_event = [self, first](const GenerationEvent& ev) {
            self->on_event(*self->choices_[first + static_cast<size_t>(ev.fork)], ev);
        };
        // Not under mu_: the step thread may be inside on_event (holding mu_) while submit takes its lock.
        auto id = engine_.scheduler().submit(std::move(g));
        if (!id.is_ok()) {
            std::lock_guard lock(mu_);
            OpenAIError e;
            e.status = id.status().is_resource_exhausted() ? 503 : 400;
            e.type = id.status().is_resource_exhausted() ? "server_error" : "invalid_request_error";
            e.message = std::string(id.status().message());
            if (request_.stream) {
                responder_.write("data: " + e.body() + "\n\n");
                responder_.end();
                answered_ = true;
                for (auto& other : choices_)
                    if (uint64_t oid = other->id.load(); oid != 0) engine_.scheduler().cancel(oid, other->fork);
            } else {
                fail(e);
            }
            return;
        }
        for (size_t i = first; i < first + static_cast<size_t>(n); ++i) {
            Choice& c = *choices_[i];
            c.id.store(*id);
            if (c.stop_requested.load() || client_left_.load()) engine_.scheduler().cancel(*id, c.fork);
        }
    }
}

void CompletionJob::on_event(Choice& c, const GenerationEvent& ev) {
    std::lock_guard lock(mu_);
    if (c.finished || answered_) return;
    observe(c, ev);
    c.completion_tokens = ev.completion_tokens;
    c.cached_tokens = ev.cached_prompt_tokens;
    const auto& stops = request_.sampling.stop_tokens;
    for (std::size_t i = 0; i < ev.tokens.size(); ++i) {
        const SampledToken& t = ev.tokens[i];
        const bool is_last = i + 1 == ev.tokens.size();
        const bool eos = ev.finished && is_last && ev.reason == FinishReason::kStop &&
                         std::find(stops.begin(), stops.end(), t.token) != stops.end();
        std::vector<LogprobEntry> lp;
        if (request_.sampling.top_logprobs >= 0) {
            LogprobEntry e{engine_.tokenizer().decode(t.token), t.logprob, {}};
            for (const TokenLogprob& alt : t.top)
                e.top.emplace_back(engine_.tokenizer().decode(alt.token), alt.logprob);
            lp.push_back(std::move(e));
        }
        if (eos) break;  // the end-of-sequence token is not text
        auto fed = c.matcher->feed(engine_.tokenizer().decode(t.token));
        emit(c, fed.emit, std::move(lp));
        if (fed.stopped) {
            c.stop_requested.store(true);
            if (uint64_t id = c.id.load(); id != 0) engine_.scheduler().cancel(id, c.fork);
            finish(c, "stop");
            return;
        }
    }
    if (!ev.finished) return;
    emit(c, c.matcher->finish(), {});
    if (ev.reason == FinishReason::kError) {
        // The only error a sequence finishes with: its constraint allows no token and the output is not complete.
        OpenAIError e{500, "the model failed while generating", "server_error", "", ""};
        if (request_.response_schema) {
            e = OpenAIError{400,
                            "no token can continue the output as a document valid under the requested schema: "
                            "keywords that only a whole value settles (pattern, not, multipleOf, formats, ...) left no "
                            "way to finish; relax the schema or retry",
                            "invalid_request_error",
                            request_.tool_choice == "required" || request_.tool_choice == "function"
                                ? "tool_choice"
                                : "response_format",
                            "response_schema_dead_end"};
        }
        if (request_.stream) {
            responder_.write("data: " + e.body() + "\n\n");
            responder_.end();
            answered_ = true;
        } else {
            fail(e);
        }
        return;
    }
    finish(c, reason_text(ev.reason));
}

// Latencies from the scheduler's own clock: queue and first token once, the rest when the request ends.
void CompletionJob::observe(Choice& choice, const GenerationEvent& ev) {
    if (!metrics_) return;
    if (choice.ttft < 0 && !ev.tokens.empty()) {
        choice.ttft = ev.ttft_seconds;
        metrics_->time_to_first_token.observe(ev.ttft_seconds);
        metrics_->queue_time.observe(ev.queue_seconds);
    }
    if (!ev.finished) return;
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    metrics_->request_latency.observe(total);
    if (ev.completion_tokens > 1 && choice.ttft >= 0)
        metrics_->time_per_output_token.observe((total - choice.ttft) / static_cast<double>(ev.completion_tokens - 1));
}

void CompletionJob::emit(Choice& c, std::string_view text, std::vector<LogprobEntry> logprobs) {
    if (text.empty() && logprobs.empty()) return;
    if (request_.stream) {
        // Tool calls: the text is kept whole for the parser; a forced call streams nothing until it is parsed,
        // an optional one streams the content before its first <tool_call>.
        if (request_.tool_choice != "none") c.raw += text;
        if (forced_call()) return;
        if (c.tool_gate) {
            const std::string gated = c.tool_gate->feed(text).emit;
            if (!gated.empty() || !logprobs.empty()) write_chunk(c, gated, logprobs, nullptr);
            return;
        }
        write_chunk(c, text, logprobs, nullptr);
    } else {
        c.text += text;
        for (auto& e : logprobs)
            c.logprobs.push_back(std::move(e));
    }
}

void CompletionJob::finish(Choice& c, std::string reason) {
    c.finished = true;
    c.finish_reason = std::move(reason);
    --unfinished_;
    if (request_.tool_choice != "none") take_tool_calls(c);
    if (request_.stream) write_chunk(c, "", {}, &c.finish_reason);
    if (unfinished_ > 0) return;
    answered_ = true;
    if (!request_.stream) {
        send_complete();
        return;
    }
    if (request_.include_usage) write_usage_chunk();
    responder_.write("data: [DONE]\n\n");
    responder_.end();
}

// The finished text's calls: OpenAI's tool_calls, finish_reason "tool_calls" ("stop" for a named function), the
// content what is left. A stream sends the calls (or the held text, when it held a call that did not parse).
void CompletionJob::take_tool_calls(Choice& c) {
    ParsedOutput parsed = parse_tool_calls(request_.stream ? c.raw : c.text, forced_call());
    if (!parsed.calls.empty()) {
        c.calls = std::move(parsed.calls);
        if (c.finish_reason == "stop") c.finish_reason = request_.tool_choice == "function" ? "stop" : "tool_calls";
        if (!request_.stream) c.text = std::move(parsed.content);
    }
    if (!request_.stream) return;
    if (c.calls.empty()) {
        // Nothing parsed: what was held back is plain text after all.
        std::string held;
        if (forced_call()) {
            held = c.raw;
        } else if (c.tool_gate) {
            held = c.tool_gate->stopped() ? c.raw.substr(c.raw.find(kToolCallOpen)) : c.tool_gate->finish();
        }
        if (!held.empty()) write_chunk(c, held, {}, nullptr);
        return;
    }
    if (c.tool_gate && !c.tool_gate->stopped()) {
        const std::string rest = c.tool_gate->finish();
        if (!rest.empty()) write_chunk(c, rest, {}, nullptr);
    }
    write_tool_calls_chunk(c);
}

void CompletionJob::write_tool_calls(json::Writer& w, const Choice& c, bool delta) const {
    w.key("tool_calls");
    w.begin_array();
    for (std::size_t i = 0; i < c.calls.size(); ++i) {
        const ToolCall& call = c.calls[i];
        w.begin_object();
        if (delta) w.key("index"), w.int64(static_cast<int64_t>(i));
        w.key("id"), w.string(call.id);
        w.key("type"), w.string("function");
        w.key("function");
        w.begin_object();
        w.key("name"), w.string(call.name);
        w.key("arguments"), w.string(valid_utf8(call.arguments_json));
        w.end_object();
        w.end_object();
    }
    w.end_array();
}

void CompletionJob::write_tool_calls_chunk(const Choice& c) {
    std::string out = "data: ";
    json::Writer w(out);
    write_head(w, "chat.completion.chunk");
    w.key("choices");
    w.begin_array();
    w.begin_object();
    w.key("index"), w.int64(c.index);
    w.key("delta");
    w.begin_object();
    write_tool_calls(w, c, true);
    w.end_object();
    w.key("logprobs"), w.null();
    w.key("finish_reason"), w.null();
    w.end_object();
    w.end_array();
    if (request_.include_usage) w.key("usage"), w.null();
    w.end_object();
    out += "\n\n";
    responder_.write(out);
}

void CompletionJob::write_logprobs(std::string& out, const std::vector<LogprobEntry>& entries,
                                   int64_t text_offset) const {
    json::Writer w(out);
    auto bytes = [&](const std::string& s) {
        w.begin_array();
        for (unsigned char ch : s)
            w.int64(ch);
        w.end_array();
    };
    auto number = [&](float v) {
        if (!w.number(static_cast<double>(v)).is_ok()) w.number(-9999.0).is_ok();
    };
    w.begin_object();
    if (request_.chat) {
        w.key("content");
        w.begin_array();
        for (const LogprobEntry& e : entries) {
            w.begin_object();
            w.key("token"), w.string(valid_utf8(e.token));
            w.key("logprob"), number(e.logprob);
            w.key("bytes"), bytes(e.token);
            w.key("top_logprobs");
            w.begin_array();
            for (const auto& [token, lp] : e.top) {
                w.begin_object();
                w.key("token"), w.string(valid_utf8(token));
                w.key("logprob"), number(lp);
                w.key("bytes"), bytes(token);
                w.end_object();
            }
            w.end_array();
            w.end_object();
        }
        w.end_array();
        w.key("refusal"), w.null();
    } else {
        w.key("tokens");
        w.begin_array();
        for (const LogprobEntry& e : entries)
            w.string(valid_utf8(e.token));
        w.end_array();
        w.key("token_logprobs");
        w.begin_array();
        for (const LogprobEntry& e : entries)
            number(e.logprob);
        w.end_array();
        w.key("top_logprobs");
        w.begin_array();
        for (const LogprobEntry& e : entries) {
            w.begin_object();
            for (const auto& [token, lp] : e.top)
                w.key(valid_utf8(token)), number(lp);
            w.end_object();
        }
        w.end_array();
        w.key("text_offset");
        w.begin_array();
        for (const LogprobEntry& e : entries) {
            w.int64(text_offset);
            text_offset += static_cast<int64_t>(e.token.size());
        }
        w.end_array();
    }
    w.end_object();
}

void CompletionJob::write_head(json::Writer& w, std::string_view object) const {
    w.begin_object();
    w.key("id"), w.string(id_);
    w.key("object"), w.string(object);
    w.key("created"), w.int64(created_);
    w.key("model"), w.string(engine_.model_id());
    w.key("system_fingerprint"), w.null();
}

void CompletionJob::write_usage(json::Writer& w) const {
    int64_t completion = 0, cached = 0;
    for (const auto& c : choices_)
        completion += c->completion_tokens, cached = std::max(cached, c->cached_tokens);
    w.key("usage");
    w.begin_object();
    w.key("prompt_tokens"), w.int64(prompt_tokens_);
    w.key("completion_tokens"), w.int64(completion);
    w.key("total_tokens"), w.int64(prompt_tokens_ + completion);
    w.key("prompt_tokens_details"), w.begin_object(), w.key("cached_tokens"), w.int64(cached), w.end_object();
    w.end_object();
}

void CompletionJob::write_chunk(const Choice& c, std::string_view text, const std::vector<LogprobEntry>& logprobs,
                                const std::string* finish_reason) {
    std::string out = "data: ";
    json::Writer w(out);
    write_head(w, request_.chat ? "chat.completion.chunk" : "text_completion");
    w.key("choices");
    w.begin_array();
    w.begin_object();
    w.key("index"), w.int64(c.index);
    if (request_.chat) {
        w.key("delta");
        w.begin_object();
        if (!c.started) {
            w.key("role"), w.string("assistant");
            w.key("content"), w.string(valid_utf8(text));
            w.key("refusal"), w.null();
        } else if (finish_reason == nullptr) {
            w.key("content"), w.string(valid_utf8(text));
        }
        w.end_object();
    } else {
        w.key("text"), w.string(valid_utf8(text));
    }
    w.key("logprobs");
    if (logprobs.empty()) {
        w.null();
    } else {
        std::string lp;
        write_logprobs(lp, logprobs, 0);
        w.raw(lp);
    }
    w.key("finish_reason");
    finish_reason ? w.string(*finish_reason) : w.null();
    w.end_object();
    w.end_array();
    if (request_.include_usage) w.key("usage"), w.null();
    w.end_object();
    out += "\n\n";
    responder_.write(out);
}

void CompletionJob::write_usage_chunk() {
    std::string out = "data: ";
    json::Writer w(out);
    write_head(w, request_.chat ? "chat.completion.chunk" : "text_completion");
    w.key("choices"), w.begin_array(), w.end_array();
    write_usage(w);
    w.end_object();
    out += "\n\n";
    responder_.write(out);
}

void CompletionJob::send_complete() {
    std::string out;
    json::Writer w(out);
    write_head(w, request_.chat ? "chat.completion" : "text_completion");
    w.key("choices");
    w.begin_array();
    for (auto& c : choices_) {
        w.begin_object();
        w.key("index"), w.int64(c->index);
        const std::string text = valid_utf8((request_.echo ? c->prompt_text : std::string()) + c->text);
        if (request_.chat) {
            w.key("message");
            w.begin_object();
            w.key("role"), w.string("assistant");
            w.key("content");
            c->calls.empty() || !text.empty() ? w.string(text) : w.null();
            w.key("refusal"), w.null();
            if (!c->calls.empty()) write_tool_calls(w, *c, false);
            w.end_object();
        } else {
            w.key("text"), w.string(text);
        }
        w.key("logprobs");
        if (request_.sampling.top_logprobs < 0) {
            w.null();
        } else {
            std::string lp;
            write_logprobs(lp, c->logprobs, request_.echo ? static_cast<int64_t>(c->prompt_text.size()) : 0);
            w.raw(lp);
        }
        w.key("finish_reason"), w.string(c->finish_reason);
        w.end_object();
    }
    w.end_array();
    write_usage(w);
    w.end_object();
    responder_.send(Response::json(std::move(out)));
}

}  // namespace slipstream::agent::infer
