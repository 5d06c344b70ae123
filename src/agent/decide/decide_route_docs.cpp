// The OpenAPI descriptions of the decision routes: summaries, answer schemas and problem statuses.
#include "agent/decide/decide_route_docs.h"

#include <string>
#include <utility>
#include <vector>

namespace slipstream::agent::decide::route_docs {

namespace {

// Answer schemas for the OpenAPI document (what the handlers write: decide_json.cpp, decide_reads.cpp).
constexpr const char* kSpecAnswer =
    R"({"type":"object","properties":{"spec":{"type":"object"},"version":{"type":"integer"},)"
    R"("generation":{"type":"integer"}},"required":["spec","version","generation"]})";
constexpr const char* kDecision =
    R"({"type":"object","properties":{"decisionId":{"type":"string"},"action":{"type":"string"},)"
    R"("actionIndex":{"type":"integer"},"probability":{"type":"number"},"ranking":{"type":"array","items":)"
    R"({"type":"object","properties":{"action":{"type":"string"},"actionIndex":{"type":"integer"},)"
    R"("score":{"type":"number"},"probability":{"type":"number"}}}},"mode":{"type":"string"},)"
    R"("modelVersion":{"type":"integer"},"generation":{"type":"integer"},"specVersion":{"type":"integer"},)"
    R"("seed":{"type":"string"},"eventId":{"type":"string"},"createdAt":{"type":"integer"}},)"
    R"("required":["decisionId","action","actionIndex","probability","ranking","mode","modelVersion"]})";
constexpr const char* kRewardAnswer =
    R"({"type":"object","properties":{"decisionId":{"type":"string"},"applied":{"type":"boolean"},)"
    R"("reward":{"type":"number"},"closed":{"type":"boolean"},"reason":{"type":"string"}},)"
    R"("required":["decisionId","applied","closed"]})";
constexpr const char* kBatchAnswer =
    R"({"type":"object","properties":{"results":{"type":"array","items":{"type":"object","properties":)"
    R"({"status":{"type":"integer"},"body":{"type":"object"}},"required":["status","body"]}}},)"
    R"("required":["results"]})";
constexpr const char* kLoggedDecision =
    R"({"type":"object","properties":{"decisionId":{"type":"string"},"closed":{"type":"boolean"},)"
    R"("reward":{"type":["number","null"]},"context":{"type":"object"},"principal":{"type":"string"},)"
    R"("rewards":{"type":"array","items":{"type":"object"}}}})";
constexpr const char* kDecisionPage =
    R"({"type":"object","properties":{"decisions":{"type":"array","items":{"type":"object"}},)"
    R"("next":{"type":["string","null"]}},"required":["decisions"]})";
constexpr const char* kModelAnswer =
    R"({"type":"object","properties":{"specVersion":{"type":"integer"},"generation":{"type":"integer"},)"
    R"("version":{"type":"integer"},"mode":{"type":"string"},"actions":{"type":"array"},)"
    R"("decisions":{"type":"integer"},"rewards":{"type":"integer"},"shadowLost":{"type":"integer"}}})";
constexpr const char* kEvaluation = R"({"type":"object"})";
// A spec patch as PUT .../spec takes it (RFC 7396: null removes a member); the handler checks every member.
constexpr const char* kSpecPatch =
    R"({"type":"object","description":"A capsule spec, or an RFC 7396 merge patch onto the stored one",)"
    R"("properties":{"actions":{"type":["array","null"],"items":{"type":"object","properties":{"id":{"type":)"
    R"("string"},"features":{"type":"object"},"eligible":{"type":"object"}},"required":["id"]}},)"
    R"("features":{"type":["object","null"]},"reward":{"type":["object","null"]},)"
    R"("exploration":{"type":["object","null"]},"learner":{"type":["object","null"]},)"
    R"("mode":{"enum":["learner","baselineExplore","frozen","shadow",null]}},"additionalProperties":false})";

OperationDoc doc(std::string summary, const char* response, std::vector<int> problems) {
    OperationDoc d;
    d.summary = std::move(summary);
    d.response_schema = response;
    d.problems = std::move(problems);
    return d;
}

}  // namespace

OperationDoc get_spec() {
    return doc("The capsule's spec, its version and generation (ETag: the version)", kSpecAnswer, {404});
}

OperationDoc put_spec() {
    OperationDoc d =
        doc("Creates the capsule (the whole spec) or applies a merge patch; If-Match: the version expected",
            kSpecAnswer, {400, 409, 413, 415});
    d.body_doc_schema = kSpecPatch;
    d.created = true;
    d.request_media = {"application/json", "application/yaml"};
    return d;
}

OperationDoc decisions() {
    OperationDoc d =
        doc("A page of logged decisions, oldest first; `next` is the cursor of the following page. "
            "format=jsonl: the export, one decision a line (decisionId, createdAt, closed, reward, "
            "context, answer, actionFeatures?, queued?), the next cursor in the Decide-Next field",
            kDecisionPage, {404});
    d.response_media = {"application/json", "application/jsonl"};
    return d;
}

OperationDoc model() {
    OperationDoc d =
        doc("The model's state; ETag changes with every learned reward and spec change", kModelAnswer, {404});
    d.not_modified = true;
    return d;
}

OperationDoc decide() {
    return doc("A decision for a context (eventId: idempotent)", kDecision, {404, 409, 413});
}

OperationDoc decide_batch() {
    return doc("Several decisions: results[i] = {status, body} of requests[i]", kBatchAnswer, {404});
}

OperationDoc reward() {
    return doc("A reward for a decision (a duplicate answers applied: false)", kRewardAnswer, {404});
}

OperationDoc reward_batch() {
    return doc("Several rewards: results[i] = {status, body} of rewards[i]", kBatchAnswer, {404});
}

OperationDoc decision() {
    return doc("A logged decision with its context and rewards", kLoggedDecision, {404});
}

OperationDoc evaluate() {
    return doc("Off-policy estimates (IPS, SNIPS, DM, DR) of a candidate and the current spec", kEvaluation,
               {400, 404});
}

OperationDoc promote() {
    return doc("The candidate becomes the spec when the gate holds; else 409 with reasons", kSpecAnswer,
               {400, 404, 409});
}

}  // namespace slipstream::agent::decide::route_docs
