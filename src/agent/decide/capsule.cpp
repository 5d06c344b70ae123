// Capsule::committed(): in-order application of learning updates.
#include "agent/decide/capsule.h"

#include "base/arena.h"
#include "base/log.h"
#include "json/parse.h"

namespace slipstream::agent::decide {

std::size_t Capsule::committed(std::int64_t seq, LearnUpdate update) {
    if (seq <= applied_seq) return 0;
    waiting.emplace(seq, std::move(update));
    if (waiting.size() > kMaxWaiting) {
        // The update before these never reported its COMMIT (a connection lost during it, committed or not):
        // skip it here rather than stop learning; a restart replays it from the log if it was committed.
        base::log_message(base::LogLevel::kWarn,
                          "decide: " + ref.key() + " skips updates " + std::to_string(applied_seq + 1) + ".." +
                              std::to_string(waiting.begin()->first - 1) + " that never reported their commit");
        applied_seq = waiting.begin()->first - 1;
    }
    std::size_t learned = 0;
    while (!waiting.empty() && waiting.begin()->first == applied_seq + 1) {
        LearnUpdate& u = waiting.begin()->second;
        if (model && u.generation == model->generation()) {
            base::Arena arena;
            base::Result<const json::Value*> context = json::parse(u.context_json, arena);
            ActionFeatures given;
            std::string error;
            base::Status s = !context.is_ok() ? context.status()
                             : !parse_action_features(u.features_json, model->limits(), given, &error)
                                 ? base::Status::invalid_argument(error)
                                 : model->learn(*context.value(), u.action, u.reward, applied_seq + 1, &given);
            if (s.is_ok()) {
                ++learned;
            } else {
                base::log_message(base::LogLevel::kWarn, "decide: update " + std::to_string(applied_seq + 1) + " of " +
                                                             ref.key() + " not learned: " + s.to_string());
            }
        }
        ++applied_seq;
        waiting.erase(waiting.begin());
    }
    since_snapshot += learned;
    return learned;
}

void Capsule::set_spec(std::shared_ptr<const CapsuleSpec> spec, std::string json, std::int64_t version,
                       std::int64_t generation, const SpecLimits& limits) {
    if (!model || model->generation() != generation) {
        model = std::make_unique<CapsuleModel>(std::move(spec), limits, generation);
        since_snapshot = 0;
    } else {
        model->set_spec(std::move(spec));
    }
    spec_json = std::move(json);
    spec_version = version;
}

}  // namespace slipstream::agent::decide
