// Registry: the list of options, looked up by flag name or environment name, set from text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/config.h"
#include "app/option.h"

namespace slipstream::app {

/// An ordered, data-driven set of options. The flag parser, the environment and config-file
/// readers, --help and the Python CLI all work from one Registry (see make_config_registry()).
/// Not thread-safe for add(); const methods may be called from any thread.
class Registry {
  public:
    /// Appends an option. Throws std::logic_error on a duplicate name, a missing set/get, or a
    /// kChoice option without choices (registration bugs, not user errors).
    void add(Option option);

    /// In registration order.
    const std::vector<Option>& options() const { return options_; }
    /// By flag name without dashes ("max-body-bytes"); nullptr when unknown.
    const Option* find(std::string_view name) const;
    /// By environment name ("SLIPSTREAM_MAX_BODY_BYTES"); nullptr when unknown.
    const Option* find_env(std::string_view env_name) const;

    /// Parses `text` for the named option and stores it. Throws ConfigError: "unknown option 'x'"
    /// or "<where>: <reason>" (where defaults to the flag, "--port").
    void set(Config& config, std::string_view name, std::string_view text, std::string_view where = {}) const;
    /// The current value as text ("1m", "10s", "true", "off"); throws ConfigError for an unknown name.
    std::string get(const Config& config, std::string_view name) const;

  private:
    std::vector<Option> options_;
};

/// Every option of ServerOptions and RunSettings plus --config, declared in one table
/// (config_options.cpp). Builds a fresh registry on each call.
Registry make_config_registry();

}  // namespace slipstream::app
