// Histogram scrape: summing shards and writing cumulative buckets.
#include "metrics/histogram.h"

#include "metrics/text_format.h"

namespace slipstream::metrics {

Histogram::Histogram(detail::SlotArena& arena, const Buckets& buckets)
    : buckets_(buckets),
      bounds_(buckets.bounds().data()),
      by_width_(buckets.by_width().data()),
      bounds_count_(static_cast<std::uint32_t>(buckets.bounds().size())),
      mask_(arena.shard_mask()),
      first_(arena.allocate(buckets.bounds().size() + 2)) {}

HistogramSnapshot Histogram::snapshot() const {
    HistogramSnapshot snap;
    const std::uint32_t shards = mask_ + 1;
    snap.counts.resize(bounds_count_ + 1);
    for (std::size_t i = 0; i <= bounds_count_; ++i) {
        snap.counts[i] = detail::sum_shards(first_ + i, shards);
        snap.count += snap.counts[i];
    }
    snap.sum = detail::sum_shards(first_ + bounds_count_ + 1, shards);
    return snap;
}

void Histogram::render(std::string_view name, std::string_view labels, std::string& out) const {
    const HistogramSnapshot snap = snapshot();
    std::uint64_t cumulative = 0;
    std::string bucket_labels(labels);
    if (!bucket_labels.empty()) bucket_labels += ',';
    bucket_labels += "le=\"";
    const std::size_t le_at = bucket_labels.size();
    for (std::size_t i = 0; i <= bounds_count_; ++i) {
        cumulative += snap.counts[i];
        bucket_labels.resize(le_at);
        bucket_labels += buckets_.le(i);
        bucket_labels += '"';
        detail::append_sample_start(out, name, "_bucket", bucket_labels);
        detail::append_uint(out, cumulative);
        out += '\n';
    }
    detail::append_sample_start(out, name, "_sum", labels);
    detail::append_scaled(out, snap.sum, buckets_.unit_divisor());
    out += '\n';
    detail::append_sample_start(out, name, "_count", labels);
    detail::append_uint(out, snap.count);
    out += '\n';
}

}  // namespace slipstream::metrics
