// The decision service's answers as JSON (camelCase members, as the API names them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "agent/decide/capsule.h"
#include "agent/decide/capsule_model.h"
#include "agent/decide/decide_types.h"

namespace slipstream::agent::decide {

/// {"decisionId","action","actionIndex","probability","ranking":[{"action","actionIndex","score","probability"}],
///  "mode","modelVersion","generation","specVersion","seed" (decimal text: 64 bits),"eventId"?,"createdAt"}
std::string decision_json(std::string_view id, const DecisionOutcome& d, std::int64_t spec_version,
                          std::string_view event_id, std::int64_t created_at_ms);

/// {"spec": <the spec>, "version", "generation"}
std::string spec_answer_json(const SpecAnswer& a);

/// {"decisionId","applied","reward","closed","reason"?}
std::string reward_json(std::string_view decision_id, bool applied, double reward, bool closed,
                        std::string_view reason);

/// {"tenant","job","capsule","specVersion","generation","version","mode","learner","dimension",
///  "actions":[{"id","updates"}],"decisions","rewards","shadowLost","shadowLostTotal"}. Call with the lock held.
std::string model_json(const Capsule& capsule, std::uint64_t shadow_lost_total);

/// A finite double as JSON (non-finite: null).
void append_number(std::string& out, double value);

}  // namespace slipstream::agent::decide
