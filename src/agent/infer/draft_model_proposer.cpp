// DraftModelProposer: per-sequence draft K/V, catch-up on verified tokens, greedy drafts batched by position.
#include "agent/infer/draft_model_proposer.h"

#include <algorithm>

namespace slipstream::agent::infer {

DraftModelProposer::DraftModelProposer(BatchModel& model)
    : model_(model),
      block_size_(model.block_size()),
      vocab_(model.vocab_size()),
      pool_(static_cast<int32_t>(model.num_blocks())) {}

bool DraftModelProposer::reserve(State& state, int64_t positions) {
    const size_t needed = static_cast<size_t>((positions + block_size_ - 1) / block_size_);
    while (state.blocks.size() < needed) {
        auto block = pool_.allocate();
        if (!block.is_ok()) return false;
        state.blocks.push_back(*block);
    }
    return true;
}

void DraftModelProposer::release(State& state) {
    while (!state.blocks.empty()) {
        pool_.release(state.blocks.back());
        state.blocks.pop_back();
    }
    state.fed.clear();
}

void DraftModelProposer::forget(uint64_t id, int32_t fork) {
    auto it = states_.find(Key{id, fork});
    if (it == states_.end()) return;
    release(it->second);
    states_.erase(it);
}

void DraftModelProposer::propose(std::span<DraftRequest> requests) {
    // Plan: what each sequence still has valid, and blocks for the catch-up and the drafts it feeds back.
    active_.clear();
    int32_t longest = 0;
    for (DraftRequest& r : requests) {
        const int64_t n = static_cast<int64_t>(r.tokens.size());
        // limit drafts feed n + limit - 1 positions: the last draft is proposed, never computed.
        const int64_t limit = std::min<int64_t>(r.limit, model_.max_context() - n + 1);
        if (limit <= 0 || n == 0) continue;
        State& state = states_[Key{r.id, r.fork}];
        const auto fed_end = std::mismatch(state.fed.begin(), state.fed.end(), r.tokens.begin(), r.tokens.end()).first;
        // At least the last token is fed again: its logits give the first draft.
        const int64_t valid = std::min<int64_t>(fed_end - state.fed.begin(), n - 1);
        if (!reserve(state, n + limit - 1)) {
            release(state);  // the pool is short: this sequence goes without drafts and holds nothing
            states_.erase(Key{r.id, r.fork});
            continue;
        }
        state.fed.resize(static_cast<size_t>(valid));
        state.fed.insert(state.fed.end(), r.tokens.begin() + valid, r.tokens.end());
        r.drafts.reserve(static_cast<size_t>(limit));
        active_.push_back({&r, &state, valid, static_cast<int32_t>(limit)});
        longest = std::max(longest, static_cast<int32_t>(limit));
    }
    // One forward per draft position over every sequence that wants that many.
    for (int32_t j = 0; j < longest; ++j)
        forward_position(j);
}

void DraftModelProposer::forward_position(int32_t j) {
    entries_.clear();
    rows_.clear();
    for (Active& a : active_) {
        if (a.limit <= j) continue;
        State& state = *a.state;
        BatchEntry entry;
        const int64_t fed = static_cast<int64_t>(state.fed.size());
        if (j == 0) {
            entry.start_pos = a.start;
            entry.tokens = std::span<const int32_t>(state.fed).subspan(static_cast<size_t>(a.start));
        } else {
            // The previous draft goes in at the next position; fed grows only after this pass (spans stay valid).
            entry.start_pos = fed;
            entry.tokens = std::span<const int32_t>(a.request->drafts).subspan(static_cast<size_t>(j - 1), 1);
        }
        entry.block_table = state.blocks;
        entry.n_logits = 1;
        tokens_forwarded_ += entry.tokens.size();
        entries_.push_back(entry);
        rows_.push_back(&a);
    }
    const size_t floats = rows_.size() * static_cast<size_t>(vocab_);
    if (logits_.size() < floats) logits_.resize(floats);
    model_.forward(entries_, logits_.data());
    for (size_t i = 0; i < rows_.size(); ++i) {
        Active& a = *rows_[i];
        if (j > 0) a.state->fed.push_back(a.request->drafts[static_cast<size_t>(j - 1)]);
        const float* row = logits_.data() + i * static_cast<size_t>(vocab_);
        // The first maximum, as greedy sampling takes it.
        a.request->drafts.push_back(static_cast<int32_t>(std::max_element(row, row + vocab_) - row));
    }
}

}  // namespace slipstream::agent::infer
