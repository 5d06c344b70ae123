// The scheduler with JsonConstraint: a model that prefers invalid tokens (and the end of sequence) still writes a
// valid document and stops only once it is complete; max_tokens cuts with kLength; unconstrained neighbours in the
// batch are untouched; constrained sequences get no drafts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agent/infer/json_constraint.h"
#include "agent/infer/scheduler.h"
#include "agent/infer/scheduler_test_support.h"
#include "agent/infer/scripted_model.h"

namespace slipstream::agent::infer {
namespace {

using testing::Recorder;

// Token 0 ends the sequence; the rest are bytes of JSON and of text.
const std::vector<std::string>& vocab() {
    static const std::vector<std::string> v = {
        "",    "{",    "}",    "[",  "]",    "\"",    ":",       ",",    " ",   "\n",  "0",   "1",   "2",
        "5",   "-",    ".",    "a",  "b",    "c",     "e",       "m",    "n",   "x",   "z",   "r",   "d",
        "g",   "l",    "u",    "t",  "\"na", "\"age", "\"color", "\":",  "{\"", "\"}", "\",", "red", "green",
        "blu", "true", "null", "me", "ag",   "col",   "or",      "  ",   "\\",  "e1",  "9",   "x\"", "q",
        "w",   "y",    "k",    "i",  "o",    "s",     "\"}\n",   "\t\t", "]]",  "}}",  "{[",  "nope"};
    return v;
}

constexpr const char* kSchema =
    R"({"type":"object","required":["name","age","color"],"additionalProperties":false,
       "properties":{"name":{"type":"string","maxLength":6},"age":{"type":"integer"},
                     "color":{"enum":["red","green","blu"]}}})";

// ScriptedModel's logits (0..8, history-dependent) with some tokens pushed far above the rest: tokens that are
// never valid where they come ("x", "]", "}}", "nope") and the end of sequence.
class PreferringModel final : public BatchModel {
  public:
    explicit PreferringModel(ScriptedModelOptions o) : inner_(o) {}
    int64_t vocab_size() const override { return inner_.vocab_size(); }
    int64_t block_size() const override { return inner_.block_size(); }
    int64_t num_blocks() const override { return inner_.num_blocks(); }
    int64_t max_context() const override { return inner_.max_context(); }
    void forward(std::span<const BatchEntry> batch, float* logits) override {
        inner_.forward(batch, logits);
        int64_t rows = 0;
        for (const BatchEntry& e : batch)
            rows += e.n_logits;
        for (int64_t r = 0; r < rows; ++r) {
            float* row = logits + r * vocab_size();
            for (int32_t t : {0, 4, 22, 62, 64})
                row[t] += 12.0f + static_cast<float>(t % 5);
        }
    }
    void copy_block(int32_t src, int32_t dst) override { inner_.copy_block(src, dst); }
    void swap_out(int32_t block, std::vector<float>& out) override { inner_.swap_out(block, out); }
    void swap_in(int32_t block, const std::vector<float>& in) override { inner_.swap_in(block, in); }
    ScriptedModel& inner() { return inner_; }

  private:
    ScriptedModel inner_;
};

struct JsonSetup {
    std::shared_ptr<const TokenBytes> tokens;
    std::shared_ptr<const structured::CompiledSchema> schema;
    JsonSetup() {
        std::vector<std::string> v = vocab();
        v.resize(80);  // the model's vocabulary is wider than the tokenizer's: ids 65..79 have no bytes
        tokens = std::make_shared<TokenBytes>(std::move(v));
        schema = *structured::CompiledSchema::create(kSchema);
    }
};

ScriptedModelOptions options() {
    ScriptedModelOptions o;
    o.vocab = 80;
    o.num_blocks = 512;
    o.max_context = 1024;
    return o;
}

GenerationRequest constrained(const JsonSetup& s, uint64_t seed, float temperature, int64_t max_tokens,
                              Recorder& recorder) {
    GenerationRequest r;
    r.prompt = testing::make_prompt(5, seed, 65);
    r.sampling.temperature = temperature;
    r.sampling.seed = seed;
    r.sampling.has_seed = true;
    r.sampling.max_tokens = max_tokens;
    r.sampling.stop_tokens = {0};
    r.on_event = recorder.callback();
    r.constraint = std::make_shared<JsonConstraint>(s.tokens, s.schema);
    return r;
}

std::string text_of(const std::vector<int32_t>& tokens) {
    std::string out;
    for (int32_t t : tokens)
        out += static_cast<size_t>(t) < vocab().size() ? vocab()[static_cast<size_t>(t)] : "?";
    return out;
}

TEST(SchedulerConstraintTest, AModelThatPrefersInvalidTokensStillWritesAValidDocument) {
    JsonSetup s;
    PreferringModel model(options());
    Scheduler scheduler(model);
    Recorder recorder;
    std::vector<uint64_t> ids;
    for (uint64_t seed = 1; seed <= 12; ++seed)
        ids.push_back(*scheduler.submit(constrained(s, seed, seed % 3 == 0 ? 0.0f : 1.0f, 400, recorder)));
    testing::run_to_idle(scheduler);
    int stopped = 0;
    for (uint64_t id : ids) {
        const testing::Outcome o = recorder.get(id);
        ASSERT_TRUE(o.finished);
        ASSERT_FALSE(o.tokens.empty());
        const std::string text = text_of(o.tokens);
        SCOPED_TRACE(text);
        if (o.reason == FinishReason::kStop) {
            ++stopped;
            EXPECT_EQ(o.tokens.back(), 0);  // the end of sequence, and only at the end
            EXPECT_EQ(std::count(o.tokens.begin(), o.tokens.end(), 0), 1);
            EXPECT_TRUE(s.schema->accepts(text));
        } else {
            EXPECT_EQ(o.reason, FinishReason::kLength);
            structured::PrefixChecker prefix(s.schema);
            EXPECT_NE(prefix.feed(text), structured::StreamState::kInvalid);
        }
    }
    EXPECT_EQ(stopped, 12);  // the end of sequence is preferred: each stops as soon as it may
    const SchedulerStats st = scheduler.stats();
    EXPECT_GT(st.constrained_refused, 0u);
    EXPECT_GT(st.constrained_masks, 0u);
    EXPECT_EQ(model.inner().corruptions(), 0);
}

TEST(SchedulerConstraintTest, MaxTokensCutsAValidPrefixWithLength) {
    JsonSetup s;
    PreferringModel model(options());
    Scheduler scheduler(model);
    Recorder recorder;
    const uint64_t id = *scheduler.submit(constrained(s, 3, 1.0f, 6, recorder));
    testing::run_to_idle(scheduler);
    const testing::Outcome o = recorder.get(id);
    EXPECT_EQ(o.reason, FinishReason::kLength);
    EXPECT_EQ(o.tokens.size(), 6u);
    structured::PrefixChecker prefix(s.schema);
    EXPECT_EQ(prefix.feed(text_of(o.tokens)), structured::StreamState::kPartial) << text_of(o.tokens);
}

TEST(SchedulerConstraintTest, NothingAllowedAfterACompleteDocumentWithoutStopTokensStops) {
    JsonSetup s;
    PreferringModel model(options());
    Scheduler scheduler(model);
    Recorder recorder;
    GenerationRequest r = constrained(s, 5, 1.0f, 400, recorder);
    r.sampling.stop_tokens.clear();
    const uint64_t id = *scheduler.submit(std::move(r));
    testing::run_to_idle(scheduler);
    const testing::Outcome o = recorder.get(id);
    EXPECT_EQ(o.reason, FinishReason::kStop);
    EXPECT_TRUE(s.schema->accepts(text_of(o.tokens))) << text_of(o.tokens);
}

TEST(SchedulerConstraintTest, UnconstrainedNeighboursAndDraftsAreUnchanged) {
    JsonSetup s;
    ScriptedModelOptions o = options();
    o.mode = ScriptedModelOptions::Mode::kBigram;
    ScriptedModel model(o);
    SchedulerOptions so;
    so.speculative_ngram = 4;
    Scheduler scheduler(model, so);
    Recorder recorder;
    const std::vector<int32_t> prompt = testing::make_prompt(12, 9, 65);
    const uint64_t plain = *scheduler.submit(testing::greedy_request(prompt, 40, recorder));
    const uint64_t json = *scheduler.submit(constrained(s, 4, 0.0f, 300, recorder));
    testing::run_to_idle(scheduler);
    EXPECT_EQ(recorder.get(plain).tokens, model.reference_greedy(prompt, 40));
    const testing::Outcome c = recorder.get(json);
    for (size_t n : c.tokens_per_event)
        EXPECT_LE(n, 1u);  // one token per step: no drafts
    structured::PrefixChecker prefix(s.schema);
    const structured::StreamState st = prefix.feed(text_of(c.tokens));
    if (c.reason == FinishReason::kStop) {
        EXPECT_TRUE(s.schema->accepts(text_of(c.tokens))) << text_of(c.tokens);
    } else {
        EXPECT_EQ(c.reason, FinishReason::kLength);
        EXPECT_NE(st, structured::StreamState::kInvalid) << text_of(c.tokens);
    }
    EXPECT_EQ(model.corruptions(), 0);
}

}  // namespace
}  // namespace slipstream::agent::infer
