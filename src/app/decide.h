// open_decide(): the learning decision service a Config asks for (--decide), mounted on the App.
#pragma once

#include <memory>

#include "agent/decide/decide_store.h"
#include "agent/decide/decide_sweeper.h"
#include "app/config.h"
#include "base/result.h"
#include "slipstream/app.h"

namespace slipstream::app {

/// What keeps the decision service running: the store and its sweeper. Keep it until the App stopped.
struct Decide {
    Decide() = default;
    ~Decide();  // stops the sweeper, writes queued shadow decisions and model snapshots, then closes the store
    Decide(const Decide&) = delete;
    Decide& operator=(const Decide&) = delete;
    std::shared_ptr<agent::decide::DecideStore> store;
    std::unique_ptr<agent::decide::DecideSweeper> sweeper;
};

/// Null when --decide is off. Otherwise opens the store (`--store`, or sqlite://<data-dir>/decide.db with the
/// folder created), creates its tables, loads every capsule's model, mounts the routes, starts the sweeper and
/// adds the readiness check "decide". Blocking: call before listening. The store's error when it cannot be opened.
base::Result<std::unique_ptr<Decide>> open_decide(const Config& config, App& app);

}  // namespace slipstream::app
