// Scheduler: continuous batching over a BatchModel, with paged KV blocks, a prefix cache, preemption and
// speculative decoding (prompt lookup or a draft model).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "agent/infer/batch_model.h"
#include "agent/infer/block_pool.h"
#include "agent/infer/draft_proposer.h"
#include "agent/infer/generation_request.h"
#include "agent/infer/prefix_cache.h"
#include "agent/infer/sequence.h"
#include "base/result.h"

namespace slipstream::agent::infer {

/// What happens to a running sequence when the KV blocks run out.
enum class PreemptionMode : uint8_t {
    kRecompute,  // drop its blocks; it re-prefills later (mostly from the prefix cache)
    kSwap,       // copy its blocks to host memory (bounded by max_swap_bytes, else recompute) and back later
};

struct SchedulerOptions {
    int64_t max_batch_tokens = 512;  // tokens forwarded per step, decodes and prefill chunks together
    int64_t max_running = 64;        // sequences holding KV blocks at once (a request's n forks count from its
                                     // admission; one with n above this waits for an empty batch)
    int64_t prefill_chunk = 256;     // most prompt tokens of one sequence per step
    int64_t max_waiting = 1024;      // queued sequences (forks count) beyond this make submit() fail
    PreemptionMode preemption = PreemptionMode::kRecompute;
    int64_t max_swap_bytes = int64_t{1} << 30;
    bool enable_prefix_cache = true;
    int32_t speculative_ngram = 0;  // 0: off; k: up to k prompt-lookup draft tokens per decode step
    int32_t speculative_draft = 0;  // with a DraftProposer given: up to k of its draft tokens per step (0: off)
    uint64_t seed = 0;              // draws the seeds of requests that bring none
    /// The time for queueing, latency and deadlines; empty: std::chrono::steady_clock::now.
    std::function<std::chrono::steady_clock::time_point()> clock = {};
};

/// A consistent snapshot, taken at the end of each step (waiting also counts requests submitted since).
struct SchedulerStats {
    int64_t waiting = 0;
    int64_t running = 0;
    int64_t swapped = 0;
    int64_t blocks_total = 0;
    int64_t blocks_used = 0;    // referenced by a sequence
    int64_t blocks_cached = 0;  // indexed by the prefix cache (used or cached-free)
    uint64_t prefix_queried_tokens = 0;
    uint64_t prefix_hit_tokens = 0;
    uint64_t steps = 0;  // steps that ran a forward pass
    int64_t batch_tokens_last_step = 0;
    uint64_t tokens_forwarded = 0;
    uint64_t tokens_generated = 0;
    uint64_t preemptions = 0;
    int64_t swap_bytes = 0;  // host memory held by swapped sequences
    uint64_t spec_proposed = 0;
    uint64_t spec_accepted = 0;
    uint64_t constrained_refused = 0;  // samples a TokenConstraint refused (each redrawn)
    uint64_t constrained_masks = 0;    // rows that needed the full mask of allowed tokens
    uint64_t blocks_copied = 0;        // copy-on-write: a fork about to write into a block it shares
};

/// Each step: finish cancelled and expired sequences; plan a batch under the token budget (running sequences in
/// priority order, decodes before prefill chunks, preempting the lowest-priority, latest-arrived running sequence
/// when blocks run out; then swapped and waiting sequences, highest priority first, while budget, blocks and
/// max_running allow); one model.forward(); sample, verify drafts, emit events, index full blocks in the prefix
/// cache. A request of n forks is prefilled once by fork 0; the others join with its blocks (shared, copied before a
/// fork writes into one it shares) when its prompt's last chunk samples. The model is driven from one thread at a
/// time: step() callers, or the thread start() makes. Drafts come from `drafter` when one is given (up to
/// speculative_draft per step), else from prompt lookup (speculative_ngram); the drafter runs on the step thread.
class Scheduler {
  public:
    Scheduler(BatchModel& model, SchedulerOptions options = {}, std::unique_ptr<DraftProposer> drafter = nullptr);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    /// Queues a request of request.n forks (one id for all); any thread. Returns its id, or invalid_argument
    /// (empty prompt, a token outside the vocabulary, a prompt that leaves no room in the context or needs more KV
    /// blocks than the cache has, max_tokens < 1, n outside 1..kMaxForks, n > 1 with a constraint that cannot be
    /// cloned), resource_exhausted (max_waiting sequences queued, counting each fork), unavailable (after stop()).
    base::Result<uint64_t> submit(GenerationRequest request);
    /// Any thread: every fork of the request finishes with kCancelled at the next step and its blocks are released.
    /// Unknown or finished ids are ignored.
    void cancel(uint64_t id);
    /// Any thread: as cancel(id), for one fork only; the others go on (a pending prompt passes to the next fork).
    void cancel(uint64_t id, int32_t fork);

    static constexpr int32_t kMaxForks = 256;

    /// One step on the calling thread (not while start()ed). Returns false when there was nothing to do.
    bool step();

    /// Runs steps on a thread of its own, which sleeps while there is no work.
    void start();
    /// Joins that thread, then finishes every request (queued ones too) with kCancelled on the calling thread.
    /// Later submits fail with unavailable. Called by the destructor.
    void stop();

    /// Any thread.
    SchedulerStats stats() const;
    const SchedulerOptions& options() const { return options_; }

  private:
    struct Planned {
        Sequence* seq;
        int64_t num_tokens;  // from num_computed, drafts not counted
        int32_t num_draft;
        int32_t draft_limit;  // budget reserved for drafts until they are proposed
        bool samples;         // reaches the end of the sequence's tokens (a decode or a prompt's last chunk)
    };
    using Key = std::pair<uint64_t, int32_t>;  // (id, fork)
    static constexpr int32_t kAllForks = -1;

    using TimePoint = std::chrono::steady_clock::time_point;
    int64_t blocks_for(int64_t positions) const { return (positions + block_size_ - 1) / block_size_; }
    TimePoint now() const { return options_.clock ? options_.clock() : std::chrono::steady_clock::now(); }
    void run_thread();

    // Step phases (scheduler_step.cpp).
    bool take_inbox(TimePoint now);
    bool expire_deadlines(TimePoint now);
    void schedule_running(int64_t& budget);
    void admit(int64_t& budget, TimePoint now);
    bool admit_waiting(Sequence& seq, int64_t& budget, TimePoint now);
    bool admit_swapped(Sequence& seq, int64_t& budget);
    int32_t draft_limit(const Sequence& seq, int64_t room) const;
    void add_drafts(int64_t& budget);
    void forward();
    void process_outputs(TimePoint now);
    void sample_row(Sequence& seq, std::span<const float> row, TimePoint now);
    void start_forks(Sequence& seq, std::span<const float> row, TimePoint now);
    void emit(Sequence& seq, std::span<const SampledToken> tokens, TimePoint now);
    bool sample_constrained_row(Sequence& seq, std::span<const float> row, TimePoint now);

    // Blocks and queues (scheduler.cpp).
    bool grow_blocks(Sequence& seq, int64_t positions);
    bool make_writable(Sequence& seq, int64_t from, int64_t to);
    void shrink_blocks(Sequence& seq, int64_t positions);
    void release_blocks(Sequence& seq);
    void index_blocks(Sequence& seq);
    void hand_over_forks(Sequence& seq);
    void preempt(Sequence& seq);
    bool swap_out(Sequence& seq);
    void finish(Sequence& seq, FinishReason reason, std::span<const SampledToken> tokens, TimePoint now);
    GenerationEvent make_event(const Sequence& seq, std::span<const SampledToken> tokens, TimePoint now) const;
    void remove_finished();
    void publish_stats();

    BatchModel& model_;
    SchedulerOptions options_;
    const int64_t block_size_;
    const int64_t vocab_size_;
    const int64_t max_context_;
    BlockPool pool_;
    std::unique_ptr<PrefixCache> cache_;      // null when the prefix cache is off
    std::unique_ptr<DraftProposer> drafter_;  // null when speculation is off
    int32_t spec_tokens_ = 0;                 // most drafts per sequence and step

    // Shared with submit(), cancel(), stats() and the thread.
    mutable std::mutex mu_;
    std::condition_variable wake_;
    std::vector<std::unique_ptr<Sequence>> inbox_;
    std::vector<Key> cancels_;  // fork kAllForks: every fork
    uint64_t next_id_ = 1;
    uint64_t next_arrival_ = 0;
    std::mt19937_64 seed_rng_;
    bool stop_requested_ = false;
    bool stopped_ = false;
    SchedulerStats published_;
    std::thread thread_;

    // The step thread's own.
    std::map<Key, std::unique_ptr<Sequence>> sequences_;
    std::vector<Sequence*> waiting_;  // each queue sorted by runs_before; pending forks are in none
    std::vector<Sequence*> running_;
    std::vector<Sequence*> swapped_;
    int64_t num_with_deadline_ = 0;
    int64_t num_pending_forks_ = 0;
    int64_t swap_bytes_ = 0;
    bool preempted_this_step_ = false;
    bool has_finished_ = false;  // finished sequences still sit in the queues
    std::vector<Planned> plan_;
    std::vector<BatchEntry> entries_;
    std::vector<float> logits_;
    std::vector<SampledToken> emitted_;
    std::vector<int32_t> drafts_;
    std::vector<DraftRequest> draft_requests_;
    std::vector<size_t> draft_plans_;  // the plan_ index of each draft request
    std::vector<float> masked_;        // a constrained row's logits with refused tokens at -inf
    std::vector<uint32_t> allowed_;    // a constrained row's full mask, as bits
    SchedulerStats counters_;          // the cumulative counters; queue sizes are filled in by publish_stats()
};

}  // namespace slipstream::agent::infer
