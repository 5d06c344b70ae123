// Channel: where the answer and the notifications of one incoming message go (a POST, stdio, a batch).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace slipstream::mcp::detail {

/// Implementations are thread-safe: answers and notifications come from any thread.
class Channel {
  public:
    virtual ~Channel() = default;
    /// A notification about a request in flight (progress, log).
    virtual void notify(std::string message) = 0;
    /// The answer (result or error) of one request.
    virtual void answer(std::string message) = 0;
    /// A request that ends without an answer (the client cancelled it).
    virtual void abandon() = 0;
    /// Ends the connection of a resumable stream, the request going on (Call::release_stream); false when this
    /// channel has none.
    virtual bool release() { return false; }
};

/// Every message to one function (stdio, Server::handle_message); abandon() sends nothing.
class FunctionChannel final : public Channel {
  public:
    explicit FunctionChannel(std::function<void(std::string)> send) : send_(std::move(send)) {}
    void notify(std::string message) override { send_(std::move(message)); }
    void answer(std::string message) override { send_(std::move(message)); }
    void abandon() override {}

  private:
    std::function<void(std::string)> send_;
};

/// Collects the answers of a batch's requests into one JSON array, handed to `parent` when the last one came
/// (abandon() when none did). Notifications pass straight through.
class BatchChannel final : public Channel {
  public:
    BatchChannel(std::shared_ptr<Channel> parent, std::size_t expected)
        : parent_(std::move(parent)), remaining_(expected) {}
    void notify(std::string message) override { parent_->notify(std::move(message)); }
    void answer(std::string message) override { done(&message); }
    void abandon() override { done(nullptr); }
    bool release() override { return parent_->release(); }

  private:
    void done(std::string* message) {
        std::string out;
        {
            std::lock_guard lock(mu_);
            if (remaining_ == 0) return;
            if (message != nullptr) answers_.push_back(std::move(*message));
            if (--remaining_ != 0) return;
            if (answers_.empty()) {
                out.clear();
            } else {
                out.push_back('[');
                for (std::size_t i = 0; i < answers_.size(); ++i) {
                    if (i) out.push_back(',');
                    out += answers_[i];
                }
                out.push_back(']');
            }
        }
        if (out.empty())
            parent_->abandon();
        else
            parent_->answer(std::move(out));
    }

    std::shared_ptr<Channel> parent_;
    std::mutex mu_;
    std::size_t remaining_;
    std::vector<std::string> answers_;
};

}  // namespace slipstream::mcp::detail
