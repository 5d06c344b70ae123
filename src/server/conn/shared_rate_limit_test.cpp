// SharedRateLimit over a scripted store: batching while a statement is out, a key's requests counted together,
// each request's decision from its batch's answer, the local fast path, and the three failure modes.
#include "server/conn/shared_rate_limit.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace slipstream::server {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// Keeps every batch and its callback; the test answers them.
class ScriptedStore final : public RateLimitStore {
  public:
    void check(std::vector<RateLimitCheck> checks, Done done) override {
        batches.push_back(std::move(checks));
        answers.push_back(std::move(done));
    }
    std::vector<std::vector<RateLimitCheck>> batches;
    std::vector<Done> answers;
};

struct Fixture {
    explicit Fixture(std::string_view failure = "local") {
        limit = std::make_shared<SharedRateLimit>(
            store, failure, 256, 1, 100, 2 * kSecond,
            [this](std::string_view, base::MonoNanos, const policy::ratelimit::Rate&) {
                ++fallbacks;
                policy::ratelimit::Decision d;
                d.allowed = true;
                d.limit = 77;
                return d;
            },
            registry);
    }
    void ask(const std::string& key) {
        limit->check(key, rate, 3, now, [this](SharedResult r) { results.push_back(r); });
    }
    metrics::Registry registry;
    std::shared_ptr<ScriptedStore> store = std::make_shared<ScriptedStore>();
    std::shared_ptr<SharedRateLimit> limit;
    policy::ratelimit::Rate rate = policy::ratelimit::Rate::parse_or_throw("1/s");
    base::MonoNanos now = 100 * kSecond;
    std::vector<SharedResult> results;
    int fallbacks = 0;
};

TEST(SharedRateLimit, BatchesWhatArrivesWhileAStatementIsOut) {
    Fixture f;
    f.ask("p:a");  // out at once
    ASSERT_EQ(f.store->batches.size(), 1u);
    f.ask("p:a");
    f.ask("p:b");
    f.ask("p:a");
    f.ask("p:a");
    ASSERT_EQ(f.store->batches.size(), 1u);  // one statement in flight at most
    f.store->answers[0](true, {{1, 1 * kSecond}});
    ASSERT_EQ(f.results.size(), 1u);
    EXPECT_TRUE(f.results[0].decision.allowed);
    EXPECT_EQ(f.results[0].decision.remaining, 2u);
    EXPECT_EQ(f.results[0].decision.reset_ns, kSecond);
    // The four waiting requests went as one statement: p:a counted 3 times, p:b once.
    ASSERT_EQ(f.store->batches.size(), 2u);
    const std::vector<RateLimitCheck>& second = f.store->batches[1];
    ASSERT_EQ(second.size(), 2u);
    EXPECT_EQ(second[0].key, "p:a");
    EXPECT_EQ(second[0].count, 3u);
    EXPECT_EQ(second[0].interval_num, 1'000'000'000u);
    EXPECT_EQ(second[0].interval_den, 1u);
    EXPECT_EQ(second[0].burst, 3u);
    EXPECT_EQ(second[1].key, "p:b");
    EXPECT_EQ(second[1].count, 1u);
    // Of p:a's three, the store allowed two (the bucket held room for two): TAT 3 s ahead after them.
    f.store->answers[1](true, {{2, 3 * kSecond}, {1, 1 * kSecond}});
    ASSERT_EQ(f.results.size(), 5u);
    // Arrival order: p:a, p:b, p:a, p:a.
    EXPECT_TRUE(f.results[1].decision.allowed);
    EXPECT_EQ(f.results[1].decision.remaining, 1u);
    EXPECT_TRUE(f.results[2].decision.allowed);  // p:b
    EXPECT_EQ(f.results[2].decision.remaining, 2u);
    EXPECT_TRUE(f.results[3].decision.allowed);
    EXPECT_EQ(f.results[3].decision.remaining, 0u);
    EXPECT_FALSE(f.results[4].decision.allowed);
    EXPECT_EQ(f.results[4].decision.retry_after_ns, kSecond);
    EXPECT_EQ(f.results[4].decision.reset_ns, 3 * kSecond);
    EXPECT_EQ(f.store->batches.size(), 2u);  // nothing left to send
}

// Answers on a thread of its own with GCRA at a fixed instant (nothing refills): of a key's requests, the first
// `burst` in all are allowed, whatever the batches.
class GcraStore final : public RateLimitStore {
  public:
    GcraStore() : worker_([this] { run(); }) {}
    ~GcraStore() override {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        worker_.join();
    }
    void check(std::vector<RateLimitCheck> checks, Done done) override {
        {
            std::lock_guard lock(mutex_);
            queue_.emplace_back(std::move(checks), std::move(done));
        }
        cv_.notify_all();
    }
    std::atomic<int> statements{0};

  private:
    void run() {
        std::unique_lock lock(mutex_);
        while (true) {
            cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
            if (queue_.empty()) return;
            auto [checks, done] = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            ++statements;
            std::vector<RateLimitOutcome> out;
            for (const RateLimitCheck& c : checks) {
                std::uint64_t& used = used_[c.key];
                const std::uint64_t allowed = std::min<std::uint64_t>(c.count, c.burst - used);
                used += allowed;
                out.push_back({static_cast<std::uint32_t>(allowed),
                               static_cast<std::int64_t>(used * c.interval_num / c.interval_den)});
            }
            done(true, std::move(out));
            lock.lock();
        }
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::pair<std::vector<RateLimitCheck>, Done>> queue_;
    std::map<std::string, std::uint64_t> used_;  // the store's thread only
    bool stop_ = false;
    std::thread worker_;
};

TEST(SharedRateLimit, ThreadsAtOnceGetExactlyTheBurst) {
    metrics::Registry registry;
    auto store = std::make_shared<GcraStore>();
    auto limit = std::make_shared<SharedRateLimit>(store, "closed", 16, 2, 100, 0, nullptr, registry);
    const policy::ratelimit::Rate rate = policy::ratelimit::Rate::parse_or_throw("1/h");
    std::mutex mutex;
    std::condition_variable cv;
    int answered = 0, allowed_a = 0, allowed_b = 0;
    constexpr int kThreads = 4, kEach = 250;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < kEach; ++i) {
                const bool b = (i + t) % 5 == 0;
                limit->check(b ? "p:b" : "p:a", rate, b ? 7 : 100, 100 * kSecond, [&, b](SharedResult r) {
                    std::lock_guard lock(mutex);
                    ASSERT_EQ(r.verdict, SharedVerdict::kDecided);
                    if (r.decision.allowed) ++(b ? allowed_b : allowed_a);
                    ++answered;
                    cv.notify_all();
                });
            }
        });
    for (std::thread& t : threads)
        t.join();
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return answered == kThreads * kEach; }));
    EXPECT_EQ(allowed_a, 100);
    EXPECT_EQ(allowed_b, 7);
    EXPECT_LT(store->statements.load(), kThreads * kEach);  // batched
}

TEST(SharedRateLimit, ARefusedKeyIsRefusedLocallyUntilItsRetryTime) {
    Fixture f;
    f.ask("p:a");
    f.store->answers[0](true, {{0, 3 * kSecond}});
    ASSERT_FALSE(f.results[0].decision.allowed);
    EXPECT_EQ(f.results[0].decision.retry_after_ns, kSecond);
    policy::ratelimit::Decision d;
    EXPECT_TRUE(f.limit->refused_locally("p:a", f.now + kSecond / 2, 3, d));
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.retry_after_ns, kSecond / 2);
    EXPECT_FALSE(f.limit->refused_locally("p:b", f.now, 3, d));
    EXPECT_FALSE(f.limit->refused_locally("p:a", f.now + kSecond, 3, d));  // its time has come: ask the store
}

TEST(SharedRateLimit, AfterAFailureTheStoreIsNotAskedForAWhile) {
    Fixture f("closed");
    f.ask("p:a");
    f.store->answers[0](false, {});
    f.now += kSecond;  // within the 2 s retry: answered at once, no statement
    f.ask("p:b");
    EXPECT_EQ(f.store->batches.size(), 1u);
    ASSERT_EQ(f.results.size(), 2u);
    EXPECT_EQ(f.results[1].verdict, SharedVerdict::kUnavailable);
    f.now += kSecond;  // the retry time has come: asked again
    f.ask("p:b");
    EXPECT_EQ(f.store->batches.size(), 2u);
    std::string text;
    f.registry.render(text);
    EXPECT_NE(text.find("slipstream_rate_limit_store_bypassed_total 1"), std::string::npos) << text;
}

TEST(SharedRateLimit, FailureModes) {
    {
        Fixture f("closed");
        f.ask("p:a");
        f.store->answers[0](false, {});
        EXPECT_EQ(f.results.at(0).verdict, SharedVerdict::kUnavailable);
    }
    {
        Fixture f("open");
        f.ask("p:a");
        f.store->answers[0](false, {});
        EXPECT_EQ(f.results.at(0).verdict, SharedVerdict::kDecided);
        EXPECT_TRUE(f.results[0].decision.allowed);
        EXPECT_EQ(f.fallbacks, 0);
    }
    {
        Fixture f("local");
        f.ask("p:a");
        f.store->answers[0](true, {});  // an answer without the key's row is a failure too
        EXPECT_EQ(f.fallbacks, 1);
        EXPECT_EQ(f.results.at(0).decision.limit, 77u);
        std::string text;
        f.registry.render(text);
        EXPECT_NE(text.find("slipstream_rate_limit_store_errors_total 1"), std::string::npos) << text;
    }
    metrics::Registry registry;
    EXPECT_THROW(SharedRateLimit(std::make_shared<ScriptedStore>(), "sometimes", 1, 1, 1, 0, nullptr, registry),
                 std::invalid_argument);
}

}  // namespace
}  // namespace slipstream::server
