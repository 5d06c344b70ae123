// Capsule::committed(): updates applied in sequence order whatever order their commits report in.
#include "agent/decide/capsule.h"

#include <gtest/gtest.h>

namespace slipstream::agent::decide {
namespace {

std::unique_ptr<Capsule> capsule_of(std::string_view spec) {
    SpecResult r = parse_capsule_spec(spec, SpecLimits{});
    EXPECT_TRUE(std::holds_alternative<CapsuleSpec>(r));
    auto c = std::make_unique<Capsule>(CapsuleRef{"t", "j", "c"});
    c->set_spec(std::make_shared<const CapsuleSpec>(std::get<CapsuleSpec>(r)), std::string(spec), 1, 1, SpecLimits{});
    return c;
}

const char* kSpec = R"({"actions":[{"id":"a"},{"id":"b"}],"features":{"context":[{"name":"x"}]}})";

TEST(Capsule, AppliesUpdatesInSequenceOrder) {
    auto in_order = capsule_of(kSpec);
    auto shuffled = capsule_of(kSpec);
    for (std::int64_t seq = 1; seq <= 6; ++seq)
        in_order->committed(seq,
                            {1, "{\"x\":" + std::to_string(seq) + "}", static_cast<std::size_t>(seq % 2), seq / 6.0});
    const std::int64_t order[] = {3, 1, 2, 6, 5, 4};
    std::size_t learned = 0;
    for (std::int64_t seq : order)
        learned += shuffled->committed(
            seq, {1, "{\"x\":" + std::to_string(seq) + "}", static_cast<std::size_t>(seq % 2), seq / 6.0});
    EXPECT_EQ(learned, 6u);
    EXPECT_EQ(shuffled->applied_seq, 6);
    EXPECT_EQ(shuffled->model->snapshot(), in_order->model->snapshot());  // the same bits
    // A repeated or old seq changes nothing; another generation's update advances the sequence unlearned.
    EXPECT_EQ(shuffled->committed(4, {1, "{}", 0, 1.0}), 0u);
    EXPECT_EQ(shuffled->committed(7, {2, "{}", 0, 1.0}), 0u);
    EXPECT_EQ(shuffled->applied_seq, 7);
    EXPECT_EQ(shuffled->model->version(), 6);
}

TEST(Capsule, AMissingCommitIsSkippedPastTheBound) {
    auto c = capsule_of(kSpec);
    // Seq 1 never reports; 2.. wait until more than kMaxWaiting do, then learning goes on without it.
    std::size_t learned = 0;
    for (std::int64_t seq = 2; seq <= static_cast<std::int64_t>(Capsule::kMaxWaiting) + 2; ++seq)
        learned += c->committed(seq, {1, "{\"x\":1}", 0, 0.5});
    EXPECT_EQ(learned, Capsule::kMaxWaiting + 1);
    EXPECT_EQ(c->applied_seq, static_cast<std::int64_t>(Capsule::kMaxWaiting) + 2);
    EXPECT_TRUE(c->waiting.empty());
}

}  // namespace
}  // namespace slipstream::agent::decide
