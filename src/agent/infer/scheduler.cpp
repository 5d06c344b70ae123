// Scheduler: submission, cancellation, the step thread, KV block bookkeeping per sequence, preemption, finishing.
#include "agent/infer/scheduler.h"

#include <algorithm>
#include <string>

#include "agent/infer/ngram_proposer.h"
#include "agent/infer/token_constraint.h"
#include "base/assert.h"

namespace slipstream::agent::infer {

namespace {

void remove_from(std::vector<Sequence*>& queue, Sequence* seq) {
    auto it = std::find(queue.begin(), queue.end(), seq);
    if (it != queue.end()) queue.erase(it);
}

}  // namespace

Scheduler::Scheduler(BatchModel& model, SchedulerOptions options, std::unique_ptr<DraftProposer> drafter)
    : model_(model),
      options_(std::move(options)),
      block_size_(model.block_size()),
      vocab_size_(model.vocab_size()),
      max_context_(model.max_context()),
      pool_(static_cast<int32_t>(model.num_blocks())),
      seed_rng_(options_.seed) {
    options_.max_batch_tokens = std::max<int64_t>(options_.max_batch_tokens, 1);
    options_.max_running = std::max<int64_t>(options_.max_running, 1);
    options_.prefill_chunk = std::max<int64_t>(options_.prefill_chunk, 1);
    options_.speculative_ngram = std::max<int32_t>(options_.speculative_ngram, 0);
    options_.speculative_draft = std::max<int32_t>(options_.speculative_draft, 0);
    if (drafter) {
        drafter_ = std::move(drafter);
        spec_tokens_ = options_.speculative_draft;
    } else if (options_.speculative_ngram > 0) {
        drafter_ = std::make_unique<NgramProposer>();
        spec_tokens_ = options_.speculative_ngram;
    }
    if (options_.enable_prefix_cache) {
        cache_ = std::make_unique<PrefixCache>(pool_, static_cast<int32_t>(block_size_));
    }
    publish_stats();
}

Scheduler::~Scheduler() {
    stop();
}

base::Result<uint64_t> Scheduler::submit(GenerationRequest request) {
    const int64_t len = static_cast<int64_t>(request.prompt.size());
    if (len == 0) return base::Status::invalid_argument("the prompt is empty");
    if (len >= max_context_) {
        return base::Status::invalid_argument("the prompt has " + std::to_string(len) +
                                              " tokens; the model's context is " + std::to_string(max_context_) +
                                              " and must keep room for one more");
    }
    const int64_t blocks = blocks_for(len);
    if (blocks > pool_.num_blocks()) {
        return base::Status::invalid_argument("the prompt has " + std::to_string(len) + " tokens, which need " +
                                              std::to_string(blocks) + " KV blocks of " + std::to_string(block_size_) +
                                              "; the cache has " + std::to_string(pool_.num_blocks()));
    }
    for (int64_t i = 0; i < len; ++i) {
        const int32_t t = request.prompt[static_cast<size_t>(i)];
        if (t < 0 || t >= vocab_size_) {
            return base::Status::invalid_argument("prompt token " + std::to_string(i) + " is " + std::to_string(t) +
                                                  "; the vocabulary has ids 0.." + std::to_string(vocab_size_ - 1));
        }
    }
    if (request.sampling.max_tokens < 1) {
        return base::Status::invalid_argument("max_tokens is " + std::to_string(request.sampling.max_tokens) +
                                              "; it must be at least 1");
    }
    const int32_t n = request.n;
    if (n < 1 || n > kMaxForks) {
        return base::Status::invalid_argument("n is " + std::to_string(n) + "; it must be in 1.." +
                                              std::to_string(kMaxForks));
    }
    std::vector<std::shared_ptr<TokenConstraint>> constraints(static_cast<size_t>(n));
    constraints[0] = std::move(request.constraint);
    for (size_t i = 1; constraints[0] && i < constraints.size(); ++i) {
        constraints[i] = constraints[0]->clone();
        if (!constraints[i]) return base::Status::invalid_argument("n > 1 needs a constraint that can be cloned");
    }
    const TimePoint arrival = now();
    std::lock_guard lock(mu_);
    if (stopped_ || stop_requested_) return base::Status::unavailable("the scheduler has stopped");
    if (published_.waiting + static_cast<int64_t>(inbox_.size()) + n > options_.max_waiting) {
        return base::Status::resource_exhausted(std::to_string(options_.max_waiting) + " requests are already waiting");
    }
    const uint64_t id = next_id_++;
    const uint64_t seed = request.sampling.seed;
    for (int32_t fork = 0; fork < n; ++fork) {
        request.sampling.seed = seed + static_cast<uint64_t>(fork);
        inbox_.push_back(std::make_unique<Sequence>(id, fork, request,
                                                    std::move(constraints[static_cast<size_t>(fork)]), seed_rng_(),
                                                    arrival, next_arrival_++));
    }
    wake_.notify_one();
    return id;
}

void Scheduler::cancel(uint64_t id) {
    cancel(id, kAllForks);
}

void Scheduler::cancel(uint64_t id, int32_t fork) {
    std::lock_guard lock(mu_);
    cancels_.push_back({id, fork});
    wake_.notify_one();
}

void Scheduler::start() {
    std::lock_guard lock(mu_);
    if (thread_.joinable() || stopped_) return;
    thread_ = std::thread([this] { run_thread(); });
}

void Scheduler::run_thread() {
    for (;;) {
        {
            std::lock_guard lock(mu_);
            if (stop_requested_) return;
        }
        if (step()) continue;
        std::unique_lock lock(mu_);
        auto has_news = [this] { return stop_requested_ || !inbox_.empty() || !cancels_.empty(); };
        // Held sequences with nothing to run (blocked admission) can still reach a deadline: poll for those.
        if (sequences_.empty()) {
            wake_.wait(lock, has_news);
        } else {
            wake_.wait_for(lock, std::chrono::milliseconds(10), has_news);
        }
    }
}

void Scheduler::stop() {
    std::thread thread;
    {
        std::lock_guard lock(mu_);
        stop_requested_ = true;
        thread = std::move(thread_);
    }
    wake_.notify_all();
    if (thread.joinable()) thread.join();
    const TimePoint t = now();
    take_inbox(t);
    {
        std::lock_guard lock(mu_);
        stopped_ = true;
        cancels_.clear();
    }
    std::vector<Sequence*> all;  // in (id, fork) order
    for (auto& [key, seq] : sequences_)
        all.push_back(seq.get());
    for (Sequence* seq : all)
        finish(*seq, FinishReason::kCancelled, {}, t);
    remove_finished();
    publish_stats();
}

bool Scheduler::grow_blocks(Sequence& seq, int64_t positions) {
    const size_t needed = static_cast<size_t>(blocks_for(positions));
    while (seq.block_table.size() < needed) {
        auto block = pool_.allocate();
        if (!block.is_ok()) return false;
        seq.block_table.push_back(*block);
    }
    return true;
}

// Copy-on-write: each block that positions [from, to) write into and that another sequence shares (a fork's
// partial prompt block) is replaced by a copy of its own. False when no block is left for a copy.
bool Scheduler::make_writable(Sequence& seq, int64_t from, int64_t to) {
    const size_t end = static_cast<size_t>(blocks_for(to));
    for (size_t i = static_cast<size_t>(from / block_size_); i < end; ++i) {
        int32_t& block = seq.block_table[i];
        if (pool_.ref_count(block) <= 1) continue;
        auto copy = pool_.allocate();
        if (!copy.is_ok()) return false;
        model_.copy_block(block, *copy);
        pool_.release(block);
        block = *copy;
        ++counters_.blocks_copied;
    }
    return true;
}

void Scheduler::shrink_blocks(Sequence& seq, int64_t positions) {
    const size_t keep = static_cast<size_t>(blocks_for(positions));
    while (seq.block_table.size() > keep) {
        pool_.release(seq.block_table.back());
        seq.block_table.pop_back();
    }
}

void Scheduler::release_blocks(Sequence& seq) {
    // Last block first: in the pool's LRU list a prefix's tail becomes evictable before its head.
    shrink_blocks(seq, 0);
    seq.num_computed = 0;
    seq.num_indexed_blocks = 0;
}

void Scheduler::index_blocks(Sequence& seq) {
    if (!cache_) return;
    const int64_t valid = std::min(seq.num_computed, seq.num_tokens());
    const int64_t full = valid / block_size_;
    if (full <= seq.num_indexed_blocks) return;
    (void)cache_->insert(std::span<const int32_t>(seq.tokens).first(static_cast<size_t>(valid)), seq.block_table);
    seq.num_indexed_blocks = full;
}

// A sequence that ends before its prompt gave logits passes its pending forks to the first of them, which
// prefills the prompt in its place (mostly from the prefix cache).
void Scheduler::hand_over_forks(Sequence& seq) {
    if (seq.forks.empty()) return;
    Sequence* heir = seq.forks.front();
    heir->forks.assign(seq.forks.begin() + 1, seq.forks.end());
    for (Sequence* fork : heir->forks)
        fork->prefiller = heir;
    seq.forks.clear();
    heir->prefiller = nullptr;
    heir->status = SequenceStatus::kWaiting;
    --num_pending_forks_;
    insert_in_order(waiting_, heir);
}

void Scheduler::preempt(Sequence& seq) {
    remove_from(running_, &seq);
    ++counters_.preemptions;
    preempted_this_step_ = true;
    if (drafter_) drafter_->forget(seq.id, seq.fork);  // its draft K/V is rebuilt if it runs again
    if (options_.preemption == PreemptionMode::kSwap && swap_out(seq)) {
        seq.status = SequenceStatus::kSwapped;
        insert_in_order(swapped_, &seq);
        return;
    }
    release_blocks(seq);
    seq.status = SequenceStatus::kWaiting;
    insert_in_order(waiting_, &seq);
}

bool Scheduler::swap_out(Sequence& seq) {
    const int64_t computed_blocks = blocks_for(seq.num_computed);
    std::vector<std::vector<float>> copies(static_cast<size_t>(computed_blocks));
    int64_t bytes = 0;
    for (int64_t i = 0; i < computed_blocks; ++i) {
        model_.swap_out(seq.block_table[static_cast<size_t>(i)], copies[static_cast<size_t>(i)]);
        bytes += static_cast<int64_t>(copies[static_cast<size_t>(i)].size() * sizeof(float));
        if (swap_bytes_ + bytes > options_.max_swap_bytes) return false;
    }
    const int64_t computed = seq.num_computed;
    release_blocks(seq);
    seq.num_computed = computed;
    seq.swapped_blocks = std::move(copies);
    seq.swapped_bytes = bytes;
    swap_bytes_ += bytes;
    return true;
}

void Scheduler::finish(Sequence& seq, FinishReason reason, std::span<const SampledToken> tokens, TimePoint now) {
    if (seq.status == SequenceStatus::kFinished) return;
    if (seq.status == SequenceStatus::kForkPending) {
        std::erase(seq.prefiller->forks, &seq);
        seq.prefiller = nullptr;
        --num_pending_forks_;
    }
    hand_over_forks(seq);
    seq.status = SequenceStatus::kFinished;
    has_finished_ = true;
    GenerationEvent event = make_event(seq, tokens, now);
    event.finished = true;
    event.reason = reason;
    release_blocks(seq);
    if (drafter_) drafter_->forget(seq.id, seq.fork);
    swap_bytes_ -= seq.swapped_bytes;
    seq.swapped_bytes = 0;
    seq.swapped_blocks.clear();
    if (seq.deadline) --num_with_deadline_;
    if (seq.on_event) seq.on_event(event);
}

GenerationEvent Scheduler::make_event(const Sequence& seq, std::span<const SampledToken> tokens, TimePoint now) const {
    GenerationEvent event;
    event.id = seq.id;
    event.fork = seq.fork;
    event.tokens.assign(tokens.begin(), tokens.end());
    event.prompt_tokens = seq.num_prompt_tokens;
    event.cached_prompt_tokens = std::max<int64_t>(seq.cached_prompt_tokens, 0);
    event.completion_tokens = seq.num_output_tokens();
    event.queue_seconds = std::chrono::duration<double>(seq.first_scheduled.value_or(now) - seq.arrival).count();
    if (seq.first_token) event.ttft_seconds = std::chrono::duration<double>(*seq.first_token - seq.arrival).count();
    return event;
}

void Scheduler::remove_finished() {
    if (!has_finished_) return;
    has_finished_ = false;
    auto finished = [](const Sequence* s) { return s->status == SequenceStatus::kFinished; };
    std::erase_if(waiting_, finished);
    std::erase_if(running_, finished);
    std::erase_if(swapped_, finished);
    std::erase_if(sequences_, [](const auto& entry) { return entry.second->status == SequenceStatus::kFinished; });
}

void Scheduler::publish_stats() {
    SchedulerStats s = counters_;
    s.waiting = static_cast<int64_t>(waiting_.size()) + num_pending_forks_;
    s.running = static_cast<int64_t>(running_.size());
    s.swapped = static_cast<int64_t>(swapped_.size());
    s.blocks_total = pool_.num_blocks();
    s.blocks_used = pool_.num_used();
    s.swap_bytes = swap_bytes_;
    if (cache_) {
        const PrefixCacheStats c = cache_->stats();
        s.blocks_cached = c.cached_blocks;
        s.prefix_queried_tokens = c.queried_tokens;
        s.prefix_hit_tokens = c.hit_tokens;
    }
    std::lock_guard lock(mu_);
    published_ = s;
}

SchedulerStats Scheduler::stats() const {
    std::lock_guard lock(mu_);
    SchedulerStats s = published_;
    s.waiting += static_cast<int64_t>(inbox_.size());
    return s;
}

}  // namespace slipstream::agent::infer
