// decision_json() and the other answers, written with json::Writer.
#include "agent/decide/decide_json.h"

#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

void number(json::Writer& w, double value) {
    if (!w.number(value).is_ok()) w.null();
}

}  // namespace

void append_number(std::string& out, double value) {
    json::Writer w(out);
    number(w, value);
}

std::string decision_json(std::string_view id, const DecisionOutcome& d, std::int64_t spec_version,
                          std::string_view event_id, std::int64_t created_at_ms) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("decisionId");
    w.string(id);
    w.key("action");
    w.string(d.action);
    w.key("actionIndex");
    w.uint64(d.action_index);
    w.key("probability");
    number(w, d.probability);
    w.key("ranking");
    w.begin_array();
    for (const RankedAction& r : d.ranking) {
        w.begin_object();
        w.key("action");
        w.string(r.id);
        w.key("actionIndex");
        w.uint64(r.index);
        w.key("score");
        number(w, r.score);
        w.key("probability");
        number(w, r.probability);
        w.end_object();
    }
    w.end_array();
    w.key("mode");
    w.string(mode_name(d.mode));
    w.key("modelVersion");
    w.int64(d.model_version);
    w.key("generation");
    w.int64(d.generation);
    w.key("specVersion");
    w.int64(spec_version);
    w.key("seed");
    w.string(std::to_string(d.seed));
    if (!event_id.empty()) {
        w.key("eventId");
        w.string(event_id);
    }
    w.key("createdAt");
    w.int64(created_at_ms);
    w.end_object();
    return out;
}

std::string spec_answer_json(const SpecAnswer& a) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("spec");
    w.raw(a.spec_json);
    w.key("version");
    w.int64(a.version);
    w.key("generation");
    w.int64(a.generation);
    w.end_object();
    return out;
}

std::string reward_json(std::string_view decision_id, bool applied, double reward, bool closed,
                        std::string_view reason) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("decisionId");
    w.string(decision_id);
    w.key("applied");
    w.boolean(applied);
    w.key("reward");
    number(w, reward);
    w.key("closed");
    w.boolean(closed);
    if (!reason.empty()) {
        w.key("reason");
        w.string(reason);
    }
    w.end_object();
    return out;
}

std::string model_json(const Capsule& c, std::uint64_t shadow_lost_total) {
    const CapsuleModel& m = *c.model;
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("tenant");
    w.string(c.ref.tenant);
    w.key("job");
    w.string(c.ref.job);
    w.key("capsule");
    w.string(c.ref.name);
    w.key("specVersion");
    w.int64(c.spec_version);
    w.key("generation");
    w.int64(m.generation());
    w.key("version");
    w.int64(m.version());
    w.key("mode");
    w.string(mode_name(m.spec().mode));
    w.key("learner");
    w.string(m.spec().learner.kind == LearnerKind::kShared ? "shared" : "perAction");
    w.key("dimension");
    w.uint64(m.spec().dimension);
    w.key("actions");
    w.begin_array();
    const std::vector<std::uint64_t> updates = m.updates_per_action();
    for (std::size_t i = 0; i < updates.size(); ++i) {
        w.begin_object();
        w.key("id");
        w.string(m.spec().actions[i].id);
        w.key("updates");
        w.uint64(updates[i]);
        w.end_object();
    }
    w.end_array();
    w.key("decisions");
    w.uint64(c.decisions);
    w.key("rewards");
    w.uint64(c.rewards);
    w.key("shadowLost");
    w.uint64(c.shadow_lost);
    w.key("shadowLostTotal");
    w.uint64(shadow_lost_total);
    w.end_object();
    return out;
}

}  // namespace slipstream::agent::decide
