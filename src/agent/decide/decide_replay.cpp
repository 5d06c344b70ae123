// replay_log(): exported lines -> LoggedDecisions (oldest first) -> evaluate_candidate() -> the gate.
#include "agent/decide/decide_replay.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "agent/decide/evaluation_report.h"
#include "agent/decide/yaml_json.h"
#include "agent/sessions/json_merge_patch.h"
#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

// JSON as it is, else YAML converted (when this build reads YAML).
base::Result<std::string> json_or_yaml(std::string_view text) {
    base::Arena arena;
    if (json::parse(text, arena).is_ok()) return std::string(text);
    if (!yaml_supported()) return base::Status::invalid_argument("not JSON");
    base::Result<std::string> converted = yaml_to_json(text);
    if (!converted.is_ok())
        return base::Status::invalid_argument("neither JSON nor YAML: " + converted.status().message());
    return converted;
}

std::string compact(const json::Value& v) {
    std::string out;
    json::Writer w(out);
    (void)w.write_value(v);
    return out;
}

struct Line {
    std::int64_t created_at = 0;
    std::string id;
    LoggedDecision decision;
};

}  // namespace

base::Result<std::string> read_spec_document(std::string_view text) {
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string json, json_or_yaml(text));
    base::Arena arena;
    base::Result<const json::Value*> root = json::parse(json, arena);
    if (!root.is_ok() || !root.value()->is_object()) return base::Status::invalid_argument("the spec is not an object");
    const json::Value* spec = root.value()->find("spec");
    if (spec != nullptr && spec->is_object() && root.value()->find("version") != nullptr) return compact(*spec);
    return json;
}

base::Result<ReplayOutcome> replay_log(std::string_view spec_json, std::string_view candidate_patch,
                                       std::string_view log, const ReplayOptions& options) {
    SpecResult current_parsed = parse_capsule_spec(spec_json, options.limits);
    if (auto* bad = std::get_if<SpecError>(&current_parsed))
        return base::Status::invalid_argument("the spec: " + bad->pointer + " " + bad->message);
    auto current = std::make_shared<const CapsuleSpec>(std::move(std::get<CapsuleSpec>(current_parsed)));
    std::shared_ptr<const CapsuleSpec> candidate = current;
    if (!candidate_patch.empty()) {
        base::Result<std::string> patch = json_or_yaml(candidate_patch);
        if (!patch.is_ok()) return base::Status::invalid_argument("the candidate: " + patch.status().message());
        base::Result<std::string> merged = sessions::apply_merge_patch(spec_json, *patch);
        if (!merged.is_ok()) return base::Status::invalid_argument("the candidate: " + merged.status().message());
        SpecResult parsed = parse_capsule_spec(*merged, options.limits);
        if (auto* bad = std::get_if<SpecError>(&parsed))
            return base::Status::invalid_argument("the candidate: " + bad->pointer + " " + bad->message);
        candidate = std::make_shared<const CapsuleSpec>(std::move(std::get<CapsuleSpec>(parsed)));
    }

    std::vector<Line> lines;
    std::size_t open = 0, number = 0;
    while (!log.empty()) {
        ++number;
        const std::size_t end = log.find('\n');
        std::string_view text = log.substr(0, end);
        log = end == std::string_view::npos ? std::string_view() : log.substr(end + 1);
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
        const std::string where = "line " + std::to_string(number) + ": ";
        if (text.size() > options.max_line_bytes)
            return base::Status::invalid_argument(where + "longer than " + std::to_string(options.max_line_bytes) +
                                                  " bytes");
        base::Arena arena;
        base::Result<const json::Value*> root = json::parse(text, arena);
        if (!root.is_ok() || !root.value()->is_object())
            return base::Status::invalid_argument(where + "not a JSON object");
        const json::Value& v = *root.value();
        const json::Value* id = v.find("decisionId");
        const json::Value* at = v.find("createdAt");
        const json::Value* closed = v.find("closed");
        const json::Value* reward = v.find("reward");
        const json::Value* context = v.find("context");
        const json::Value* answer = v.find("answer");
        if (id == nullptr || !id->is_string() || at == nullptr || !at->is_number() || closed == nullptr ||
            !closed->is_bool() || reward == nullptr || context == nullptr || !context->is_object() ||
            answer == nullptr || !answer->is_object())
            return base::Status::invalid_argument(
                where + "not an exported decision (decisionId, createdAt, closed, reward, context, answer)");
        if (!closed->as_bool() || !reward->is_number()) {
            ++open;
            continue;
        }
        if (lines.size() == options.max_decisions)
            return base::Status::invalid_argument("more than " + std::to_string(options.max_decisions) +
                                                  " closed decisions (the limit)");
        Line line;
        line.created_at = static_cast<std::int64_t>(at->as_double());
        line.id = std::string(id->as_string());
        line.decision.context_json = compact(*context);
        line.decision.answer_json = compact(*answer);
        line.decision.reward = reward->as_double();
        if (const json::Value* f = v.find("actionFeatures"); f != nullptr && f->is_object())
            line.decision.features_json = compact(*f);
        lines.push_back(std::move(line));
    }
    std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
        return std::tie(a.created_at, a.id) < std::tie(b.created_at, b.id);
    });
    lines.erase(std::unique(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.id == b.id; }),
                lines.end());  // pages exported twice
    std::vector<LoggedDecision> decisions;
    decisions.reserve(lines.size());
    for (Line& l : lines)
        decisions.push_back(std::move(l.decision));

    EvaluationReport report =
        evaluate_candidate(candidate, current, options.limits, decisions, options.resamples, options.seed);
    ReplayOutcome out;
    out.reasons = gate_reasons(report, options.min_samples);
    out.report_json = "{" + report_members(report, std::nullopt) + ",";
    json::Writer w(out.report_json);
    w.key("open");
    w.uint64(open);
    w.key("gate");
    w.begin_object();
    w.key("minSamples");
    w.uint64(options.min_samples);
    w.key("passed");
    w.boolean(out.reasons.empty());
    w.key("reasons");
    w.begin_array();
    for (const std::string& r : out.reasons)
        w.string(r);
    w.end_array();
    w.end_object();
    out.report_json += "}";
    return out;
}

}  // namespace slipstream::agent::decide
