// Scheduler::step(): take new work, plan a batch under the token and block budgets, forward, sample, emit.
#include <algorithm>

#include "agent/infer/scheduler.h"
#include "agent/infer/token_constraint.h"

namespace slipstream::agent::infer {
namespace {

// Plain draws of a constrained sequence (each refused token struck out) before the full mask is computed.
constexpr int kConstrainedTries = 3;

}  // namespace

// ~290 ns per decoded token at 1 to 256 running sequences with a model that costs nothing (scheduler_bench),
// of which about 70% is sampling (a log-softmax per row); the scheduler's own bookkeeping is ~75 ns per token.
bool Scheduler::step() {
    const TimePoint start = now();
    preempted_this_step_ = false;
    bool did = take_inbox(start);
    did = expire_deadlines(start) || did;
    remove_finished();

    plan_.clear();
    int64_t budget = options_.max_batch_tokens;
    schedule_running(budget);
    add_drafts(budget);
    admit(budget, start);
    remove_finished();  // a sequence alone that outgrew the cache finished while planning
    if (plan_.empty()) {
        publish_stats();
        return did || preempted_this_step_;
    }
    forward();
    process_outputs(now());
    remove_finished();
    publish_stats();
    return true;
}

bool Scheduler::take_inbox(TimePoint now) {
    std::vector<std::unique_ptr<Sequence>> fresh;
    std::vector<Key> cancels;
    {
        std::lock_guard lock(mu_);
        if (inbox_.empty() && cancels_.empty()) return false;
        fresh.swap(inbox_);
        cancels.swap(cancels_);
    }
    // A request's forks follow its fork 0, which prefills the prompt for them.
    Sequence* prefiller = nullptr;
    for (auto& seq : fresh) {
        if (seq->deadline) ++num_with_deadline_;
        if (seq->fork == 0) {
            prefiller = seq.get();
            insert_in_order(waiting_, prefiller);
        } else {
            seq->status = SequenceStatus::kForkPending;
            seq->prefiller = prefiller;
            prefiller->forks.push_back(seq.get());
            ++num_pending_forks_;
        }
        const Key key{seq->id, seq->fork};
        sequences_.emplace(key, std::move(seq));
    }
    for (const auto& [id, fork] : cancels) {
        if (fork != kAllForks) {
            auto it = sequences_.find(Key{id, fork});
            if (it != sequences_.end()) finish(*it->second, FinishReason::kCancelled, {}, now);
            continue;
        }
        for (auto it = sequences_.lower_bound(Key{id, 0}); it != sequences_.end() && it->first.first == id; ++it)
            finish(*it->second, FinishReason::kCancelled, {}, now);
    }
    return true;
}

bool Scheduler::expire_deadlines(TimePoint now) {
    if (num_with_deadline_ == 0) return false;
    std::vector<Sequence*> expired;
    for (auto& [key, seq] : sequences_) {  // in (id, fork) order
        if (seq->status != SequenceStatus::kFinished && seq->deadline && *seq->deadline <= now) {
            expired.push_back(seq.get());
        }
    }
    for (Sequence* seq : expired)
        finish(*seq, FinishReason::kDeadline, {}, now);
    return !expired.empty();
}

void Scheduler::schedule_running(int64_t& budget) {
    // Every decode keeps one token of the budget, so prefill chunks of higher-priority sequences cannot starve them.
    int64_t decodes_left = 0;
    for (const Sequence* seq : running_)
        decodes_left += seq->num_tokens() - seq->num_computed == 1 ? 1 : 0;
    for (size_t i = 0; i < running_.size(); ++i) {
        Sequence& seq = *running_[i];
        const int64_t remaining = seq.num_tokens() - seq.num_computed;
        const bool decode = remaining == 1;
        if (decode) --decodes_left;
        const int64_t room = budget - decodes_left;
        if (room <= 0) continue;
        const int64_t n = decode ? 1 : std::min({remaining, options_.prefill_chunk, room});
        // Out of blocks: preempt from the back (lowest priority, latest arrival), which is not planned yet.
        // A fork's first write into the prompt's partial block copies it first.
        bool planned = true;
        while (!grow_blocks(seq, seq.num_computed + n) || !make_writable(seq, seq.num_computed, seq.num_computed + n)) {
            Sequence* victim = running_.back();
            if (victim != &seq) {
                if (victim->num_tokens() - victim->num_computed == 1) --decodes_left;
                preempt(*victim);
                continue;
            }
            if (running_.size() == 1) {
                // It holds every block there is: the cache is its context limit.
                finish(seq, FinishReason::kLength, {}, now());
            } else {
                preempt(seq);
            }
            planned = false;
            break;
        }
        if (!planned) break;
        const bool samples = seq.num_computed + n == seq.num_tokens();
        const int32_t limit = decode ? draft_limit(seq, room - 1) : 0;
        plan_.push_back({&seq, n, 0, limit, samples});
        budget -= n + limit;  // until add_drafts gives back what the drafter did not propose
    }
}

int32_t Scheduler::draft_limit(const Sequence& seq, int64_t room) const {
    if (spec_tokens_ == 0 || seq.constraint) return 0;  // a constraint checks tokens one at a time
    // This step emits drafts + 1 tokens at most; none may pass max_tokens or the context.
    const int64_t out_left = seq.sampler.params().max_tokens - seq.num_output_tokens();
    const int64_t context_left = max_context_ - seq.num_tokens();
    const int64_t limit = std::min({int64_t{spec_tokens_}, room, out_left - 1, context_left - 1});
    return static_cast<int32_t>(std::max<int64_t>(limit, 0));
}

// Every planned decode with a draft limit asks the drafter at once (a draft model batches them); each gets blocks
// for what was proposed, and the budget it reserved beyond that goes back for admissions.
void Scheduler::add_drafts(int64_t& budget) {
    size_t count = 0;
    draft_plans_.clear();
    for (size_t i = 0; i < plan_.size(); ++i) {
        const Planned& p = plan_[i];
        if (p.draft_limit == 0) continue;
        if (draft_requests_.size() <= count) draft_requests_.emplace_back();
        DraftRequest& r = draft_requests_[count++];
        r.id = p.seq->id;
        r.fork = p.seq->fork;
        r.tokens = p.seq->tokens;
        r.limit = p.draft_limit;
        r.drafts.clear();
        draft_plans_.push_back(i);
    }
    if (count == 0) return;
    drafter_->propose(std::span<DraftRequest>(draft_requests_).first(count));
    for (size_t k = 0; k < count; ++k) {
        Planned& p = plan_[draft_plans_[k]];
        Sequence& seq = *p.seq;
        std::vector<int32_t>& drafts = draft_requests_[k].drafts;
        budget += p.draft_limit;
        if (drafts.size() > static_cast<size_t>(p.draft_limit)) drafts.resize(static_cast<size_t>(p.draft_limit));
        p.draft_limit = 0;
        auto bad = std::find_if(drafts.begin(), drafts.end(), [&](int32_t t) { return t < 0 || t >= vocab_size_; });
        drafts.erase(bad, drafts.end());
        if (drafts.empty()) continue;
        const int64_t positions = seq.num_tokens() + static_cast<int64_t>(drafts.size());
        if (!grow_blocks(seq, positions) || !make_writable(seq, seq.num_computed, positions)) {
            shrink_blocks(seq, seq.num_tokens());  // drafts never preempt anyone
            continue;
        }
        seq.tokens.insert(seq.tokens.end(), drafts.begin(), drafts.end());
        counters_.spec_proposed += drafts.size();
        p.num_draft = static_cast<int32_t>(drafts.size());
        budget -= p.num_draft;
    }
}

void Scheduler::admit(int64_t& budget, TimePoint now) {
    // After a preemption the blocks are short: admitting more would only preempt again.
    if (preempted_this_step_) return;
    // A sequence's pending forks count as running: they join it when its prompt is done.
    int64_t held = 0;
    for (const Sequence* seq : running_)
        held += 1 + static_cast<int64_t>(seq->forks.size());
    while (budget > 0 && held < options_.max_running) {
        Sequence* waiting = waiting_.empty() ? nullptr : waiting_.front();
        Sequence* swapped = swapped_.empty() ? nullptr : swapped_.front();
        if (waiting == nullptr && swapped == nullptr) break;
        // Strict order: the best candidate goes first or nobody does.
        const bool take_swapped = swapped != nullptr && (waiting == nullptr || runs_before(*swapped, *waiting));
        Sequence& next = take_swapped ? *swapped : *waiting;
        const int64_t weight = 1 + static_cast<int64_t>(next.forks.size());
        if (held > 0 && held + weight > options_.max_running) break;
        const bool ok = take_swapped ? admit_swapped(next, budget) : admit_waiting(next, budget, now);
        if (!ok) break;
        held += weight;
    }
}

bool Scheduler::admit_waiting(Sequence& seq, int64_t& budget, TimePoint now) {
    if (cache_) {
        std::vector<int32_t> hit = cache_->match(seq.tokens);
        for (int32_t block : hit)
            pool_.retain(block);
        seq.block_table = std::move(hit);
    }
    seq.num_computed = static_cast<int64_t>(seq.block_table.size()) * block_size_;
    seq.num_indexed_blocks = static_cast<int64_t>(seq.block_table.size());
    const int64_t n = std::min({seq.num_tokens() - seq.num_computed, options_.prefill_chunk, budget});
    if (!grow_blocks(seq, seq.num_computed + n)) {
        release_blocks(seq);
        return false;
    }
    counters_.prefix_queried_tokens += static_cast<uint64_t>(seq.num_tokens());
    counters_.prefix_hit_tokens += static_cast<uint64_t>(seq.num_computed);
    if (seq.cached_prompt_tokens < 0) seq.cached_prompt_tokens = seq.num_computed;
    if (!seq.first_scheduled) seq.first_scheduled = now;
    waiting_.erase(waiting_.begin());
    seq.status = SequenceStatus::kRunning;
    insert_in_order(running_, &seq);
    plan_.push_back({&seq, n, 0, 0, seq.num_computed + n == seq.num_tokens()});
    budget -= n;
    return true;
}

bool Scheduler::admit_swapped(Sequence& seq, int64_t& budget) {
    const int64_t remaining = seq.num_tokens() - seq.num_computed;
    const int64_t n = std::min({remaining, options_.prefill_chunk, budget});
    if (!grow_blocks(seq, seq.num_computed + n)) {
        shrink_blocks(seq, 0);
        return false;
    }
    for (size_t i = 0; i < seq.swapped_blocks.size(); ++i)
        model_.swap_in(seq.block_table[i], seq.swapped_blocks[i]);
    seq.swapped_blocks.clear();
    swap_bytes_ -= seq.swapped_bytes;
    seq.swapped_bytes = 0;
    seq.num_indexed_blocks = 0;  // fresh blocks: index them anew where the tree lost the old ones
    swapped_.erase(swapped_.begin());
    seq.status = SequenceStatus::kRunning;
    insert_in_order(running_, &seq);
    plan_.push_back({&seq, n, 0, 0, seq.num_computed + n == seq.num_tokens()});
    budget -= n;
    return true;
}

void Scheduler::forward() {
    // Decodes first, then prefill chunks (the batch layout the model expects does not matter; logits rows follow).
    std::stable_partition(plan_.begin(), plan_.end(), [](const Planned& p) { return p.samples && p.num_tokens == 1; });
    entries_.clear();
    int64_t rows = 0;
    int64_t tokens = 0;
    for (const Planned& p : plan_) {
        const Sequence& seq = *p.seq;
        const int64_t count = p.num_tokens + p.num_draft;
        BatchEntry entry;
        entry.tokens = std::span<const int32_t>(seq.tokens)
                           .subspan(static_cast<size_t>(seq.num_computed), static_cast<size_t>(count));
        entry.start_pos = seq.num_computed;
        entry.block_table = seq.block_table;
        entry.n_logits = p.samples ? p.num_draft + 1 : 0;
        entries_.push_back(entry);
        rows += entry.n_logits;
        tokens += count;
    }
    const size_t floats = static_cast<size_t>(rows * vocab_size_);
    if (logits_.size() < floats) logits_.resize(floats);
    model_.forward(entries_, logits_.data());
    ++counters_.steps;
    counters_.batch_tokens_last_step = tokens;
    counters_.tokens_forwarded += static_cast<uint64_t>(tokens);
}

void Scheduler::process_outputs(TimePoint now) {
    const size_t vocab = static_cast<size_t>(vocab_size_);
    size_t row = 0;
    for (const Planned& p : plan_) {
        Sequence& seq = *p.seq;
        const int64_t end = seq.num_computed + p.num_tokens;  // the sequence's length without drafts
        seq.num_computed = end;
        if (!p.samples) {
            index_blocks(seq);
            continue;
        }
        auto logits_row = [&](size_t r) { return std::span<const float>(logits_.data() + r * vocab, vocab); };
        if (p.num_draft == 0) {
            if (!seq.forks.empty()) start_forks(seq, logits_row(row), now);
            sample_row(seq, logits_row(row), now);
            row += 1;
            continue;
        }
        // Row j verifies draft j; a rejected draft's K/V (and everything after it) is dropped.
        emitted_.clear();
        drafts_.assign(seq.tokens.begin() + end, seq.tokens.end());
        seq.tokens.resize(static_cast<size_t>(end));
        int64_t accepted = 0;
        for (int32_t draft : drafts_) {
            auto [token, ok] = seq.sampler.verify(logits_row(row + static_cast<size_t>(accepted)), draft);
            seq.sampler.accept(token.token);
            emitted_.push_back(std::move(token));
            if (!ok) break;
            ++accepted;
        }
        if (accepted == p.num_draft) {
            emitted_.push_back(seq.sampler.sample(logits_row(row + static_cast<size_t>(accepted))));
            seq.sampler.accept(emitted_.back().token);
        }
        seq.num_computed = end + accepted;
        counters_.spec_accepted += static_cast<uint64_t>(accepted);
        row += static_cast<size_t>(p.num_draft) + 1;
        emit(seq, emitted_, now);
    }
}

// One token from one row (constrained or not), emitted.
void Scheduler::sample_row(Sequence& seq, std::span<const float> row, TimePoint now) {
    emitted_.clear();
    if (seq.constraint) {
        if (!sample_constrained_row(seq, row, now)) return;
    } else {
        emitted_.push_back(seq.sampler.sample(row));
        seq.sampler.accept(emitted_.back().token);
    }
    emit(seq, emitted_, now);
}

// The prompt's last chunk gave `row`: each pending fork takes the prompt's blocks (one more reference each; the
// partial last block is copied by whoever writes it first while it is shared) and samples its first token.
void Scheduler::start_forks(Sequence& seq, std::span<const float> row, TimePoint now) {
    const size_t blocks = static_cast<size_t>(blocks_for(seq.num_computed));
    std::vector<Sequence*> forks = std::move(seq.forks);
    seq.forks.clear();
    for (Sequence* fork : forks) {
        fork->block_table.assign(seq.block_table.begin(), seq.block_table.begin() + static_cast<ptrdiff_t>(blocks));
        for (int32_t block : fork->block_table)
            pool_.retain(block);
        fork->num_computed = seq.num_computed;
        fork->num_indexed_blocks = seq.num_indexed_blocks;
        fork->cached_prompt_tokens = seq.cached_prompt_tokens;
        fork->first_scheduled = seq.first_scheduled;
        fork->prefiller = nullptr;
        fork->status = SequenceStatus::kRunning;
        --num_pending_forks_;
        insert_in_order(running_, fork);
        sample_row(*fork, row, now);
    }
}

// Into emitted_; false when nothing is allowed: the sequence finished (kStop when its output is complete).
bool Scheduler::sample_constrained_row(Sequence& seq, std::span<const float> row, TimePoint now) {
    ConstrainedDraw draw = sample_constrained(seq.sampler, *seq.constraint, row, kConstrainedTries, masked_, allowed_);
    counters_.constrained_refused += static_cast<uint64_t>(draw.refused);
    counters_.constrained_masks += draw.masked ? 1 : 0;
    if (!draw.token) {
        finish(seq, seq.constraint->complete() ? FinishReason::kStop : FinishReason::kError, {}, now);
        return false;
    }
    const SamplingParams& params = seq.sampler.params();
    const int32_t token = draw.token->token;
    const bool stop = !params.ignore_eos && std::find(params.stop_tokens.begin(), params.stop_tokens.end(), token) !=
                                                params.stop_tokens.end();
    if (!stop) seq.constraint->accept(token);
    seq.sampler.accept(token);
    emitted_.push_back(std::move(*draw.token));
    return true;
}

void Scheduler::emit(Sequence& seq, std::span<const SampledToken> tokens, TimePoint now) {
    const SamplingParams& params = seq.sampler.params();
    FinishReason reason = FinishReason::kNone;
    size_t kept = 0;
    for (const SampledToken& token : tokens) {
        seq.tokens.push_back(token.token);
        ++kept;
        ++counters_.tokens_generated;
        if (!params.ignore_eos &&
            std::find(params.stop_tokens.begin(), params.stop_tokens.end(), token.token) != params.stop_tokens.end()) {
            reason = FinishReason::kStop;
        } else if (seq.num_output_tokens() >= params.max_tokens || seq.num_tokens() >= max_context_) {
            reason = FinishReason::kLength;
        }
        if (reason != FinishReason::kNone) break;
    }
    if (!seq.first_token) seq.first_token = now;
    seq.last_token = now;
    index_blocks(seq);
    if (reason != FinishReason::kNone) {
        finish(seq, reason, tokens.first(kept), now);
        return;
    }
    shrink_blocks(seq, seq.num_computed);  // blocks that held only rejected drafts
    if (seq.on_event) seq.on_event(make_event(seq, tokens, now));
}

}  // namespace slipstream::agent::infer
