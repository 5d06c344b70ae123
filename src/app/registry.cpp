// Registry: the list of options, looked up by flag name or environment name, set from text.
#include "app/registry.h"

#include <stdexcept>

#include "app/config_error.h"

namespace slipstream::app {

void Registry::add(Option option) {
    if (option.name.empty() || find(option.name) != nullptr)
        throw std::logic_error("option registered twice or without a name: '" + option.name + "'");
    if (!option.set || !option.get) throw std::logic_error("option '" + option.name + "' needs set and get");
    if (option.kind == OptionKind::kChoice && option.choices.empty())
        throw std::logic_error("choice option '" + option.name + "' has no choices");
    options_.push_back(std::move(option));
}

const Option* Registry::find(std::string_view name) const {
    for (const Option& o : options_)
        if (o.name == name) return &o;
    return nullptr;
}

const Option* Registry::find_env(std::string_view env_name) const {
    for (const Option& o : options_)
        if (o.env_name() == env_name) return &o;
    return nullptr;
}

void Registry::set(Config& config, std::string_view name, std::string_view text, std::string_view where) const {
    const Option* option = find(name);
    if (option == nullptr) throw ConfigError("unknown option '" + std::string(name) + "'");
    std::string flag = option->flag();
    option->set(config, parse_option_value(*option, text, where.empty() ? std::string_view(flag) : where));
}

std::string Registry::get(const Config& config, std::string_view name) const {
    const Option* option = find(name);
    if (option == nullptr) throw ConfigError("unknown option '" + std::string(name) + "'");
    return format_option_value(*option, option->get(config));
}

}  // namespace slipstream::app
