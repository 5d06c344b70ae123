// ScriptedModel: KV slots as a checked chain of states; logits rows from a hash of the state.
#include "agent/infer/scripted_model.h"

#include <algorithm>
#include <bit>

namespace slipstream::agent::infer {

namespace {

constexpr uint64_t kSeedState = 0x5EED5EED5EED5EEDull;

uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t mix(uint64_t state, int32_t token, int64_t pos) {
    return splitmix(state ^ (static_cast<uint64_t>(static_cast<uint32_t>(token)) * 0xD6E8FEB86659FD93ull) ^
                    (static_cast<uint64_t>(pos) << 32));
}

uint64_t bigram_key(int32_t last, int32_t before) {
    return splitmix((static_cast<uint64_t>(static_cast<uint32_t>(last)) << 32) ^ static_cast<uint32_t>(before));
}

}  // namespace

ScriptedModel::ScriptedModel(ScriptedModelOptions options)
    : options_(options), slots_(static_cast<size_t>(options.num_blocks * options.block_size)) {}

ScriptedModel::Slot* ScriptedModel::slot(std::span<const int32_t> table, int64_t pos) {
    const int64_t index = pos / options_.block_size;
    if (pos < 0 || index >= static_cast<int64_t>(table.size())) return nullptr;
    const int32_t block = table[static_cast<size_t>(index)];
    if (block < 0 || block >= options_.num_blocks) return nullptr;
    return &slots_[static_cast<size_t>(block * options_.block_size + pos % options_.block_size)];
}

void ScriptedModel::write_row(uint64_t key, float* row) const {
    for (int64_t v = 0; v < options_.vocab; ++v) {
        const uint64_t h = splitmix(key ^ (static_cast<uint64_t>(v) * 0xA24BAED4963EE407ull));
        row[v] = static_cast<float>(h >> 40) * (8.0f / 16777216.0f);
    }
}

uint64_t ScriptedModel::row_key(std::span<const int32_t> table, int64_t pos) {
    // Walk the whole chain: any slot that is not what its predecessors say counts once for this row.
    uint64_t state = kSeedState;
    bool broken = false;
    for (int64_t q = 0; q <= pos; ++q) {
        const Slot* s = slot(table, q);
        if (s == nullptr || s->pos != q || s->state != mix(state, s->token, q)) broken = true;
        state = s == nullptr ? 0 : s->state;
    }
    if (broken) ++corruptions_;
    if (options_.mode == ScriptedModelOptions::Mode::kHistory) return state;
    const Slot* last = slot(table, pos);
    const Slot* before = pos > 0 ? slot(table, pos - 1) : nullptr;
    return bigram_key(last == nullptr ? -2 : last->token, before == nullptr ? -1 : before->token);
}

void ScriptedModel::forward(std::span<const BatchEntry> batch, float* logits) {
    auto& records = steps_.emplace_back();
    float* row = logits;
    for (const BatchEntry& e : batch) {
        const int64_t n = static_cast<int64_t>(e.tokens.size());
        records.push_back({e.start_pos, n, e.n_logits});
        tokens_forwarded_ += n;
        for (int64_t j = 0; j < n; ++j) {
            const int64_t p = e.start_pos + j;
            uint64_t prev = kSeedState;
            if (p > 0) {
                const Slot* s = slot(e.block_table, p - 1);
                if (s == nullptr || s->pos != p - 1) ++corruptions_;
                prev = s == nullptr ? 0 : s->state;
            }
            Slot* dst = slot(e.block_table, p);
            if (dst == nullptr) {
                ++corruptions_;
                continue;
            }
            const int32_t token = e.tokens[static_cast<size_t>(j)];
            *dst = Slot{token, p, mix(prev, token, p)};
        }
        for (int64_t r = 0; r < e.n_logits; ++r) {
            write_row(row_key(e.block_table, e.start_pos + n - e.n_logits + r), row);
            row += options_.vocab;
        }
    }
}

void ScriptedModel::copy_block(int32_t src, int32_t dst) {
    const int64_t bs = options_.block_size;
    for (int64_t i = 0; i < bs; ++i)
        slots_[static_cast<size_t>(dst * bs + i)] = slots_[static_cast<size_t>(src * bs + i)];
    ++copies_;
}

void ScriptedModel::swap_out(int32_t block, std::vector<float>& out) {
    const int64_t bs = options_.block_size;
    out.resize(static_cast<size_t>(bs * kFloatsPerSlot));
    for (int64_t i = 0; i < bs; ++i) {
        const Slot& s = slots_[static_cast<size_t>(block * bs + i)];
        const uint64_t pos = static_cast<uint64_t>(s.pos);
        float* f = out.data() + i * kFloatsPerSlot;
        f[0] = std::bit_cast<float>(s.token);
        f[1] = std::bit_cast<float>(static_cast<uint32_t>(pos));
        f[2] = std::bit_cast<float>(static_cast<uint32_t>(pos >> 32));
        f[3] = std::bit_cast<float>(static_cast<uint32_t>(s.state));
        f[4] = std::bit_cast<float>(static_cast<uint32_t>(s.state >> 32));
    }
    ++swaps_out_;
}

void ScriptedModel::swap_in(int32_t block, const std::vector<float>& in) {
    const int64_t bs = options_.block_size;
    for (int64_t i = 0; i < bs; ++i) {
        Slot& s = slots_[static_cast<size_t>(block * bs + i)];
        const float* f = in.data() + i * kFloatsPerSlot;
        s.token = std::bit_cast<int32_t>(f[0]);
        s.pos = static_cast<int64_t>(std::bit_cast<uint32_t>(f[1]) | (uint64_t{std::bit_cast<uint32_t>(f[2])} << 32));
        s.state = std::bit_cast<uint32_t>(f[3]) | (uint64_t{std::bit_cast<uint32_t>(f[4])} << 32);
    }
    ++swaps_in_;
}

std::vector<float> ScriptedModel::reference_logits(std::span<const int32_t> tokens) const {
    uint64_t state = kSeedState;
    for (size_t q = 0; q < tokens.size(); ++q)
        state = mix(state, tokens[q], static_cast<int64_t>(q));
    const size_t n = tokens.size();
    const uint64_t key = options_.mode == ScriptedModelOptions::Mode::kHistory
                             ? state
                             : bigram_key(tokens[n - 1], n > 1 ? tokens[n - 2] : -1);
    std::vector<float> row(static_cast<size_t>(options_.vocab));
    write_row(key, row.data());
    return row;
}

std::vector<int32_t> ScriptedModel::reference_greedy(std::span<const int32_t> prompt, int64_t n,
                                                     std::span<const int32_t> stop_tokens) const {
    std::vector<int32_t> tokens(prompt.begin(), prompt.end());
    std::vector<int32_t> out;
    for (int64_t i = 0; i < n; ++i) {
        const std::vector<float> row = reference_logits(tokens);
        int32_t best = 0;
        for (int32_t v = 1; v < static_cast<int32_t>(row.size()); ++v) {
            if (row[static_cast<size_t>(v)] > row[static_cast<size_t>(best)]) best = v;
        }
        out.push_back(best);
        tokens.push_back(best);
        if (std::find(stop_tokens.begin(), stop_tokens.end(), best) != stop_tokens.end()) break;
    }
    return out;
}

}  // namespace slipstream::agent::infer
