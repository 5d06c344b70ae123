// FamilyBase: what the Registry knows of every family: its name, help, type, labels and how to render.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slipstream::metrics::detail {

/// One metric family: a name, help text, a type and label names, with zero or more children.
/// Names are validated by the Registry before a family is made. Not copyable or movable: children
/// and callers hold references into it.
class FamilyBase {
  public:
    FamilyBase(std::string name, std::string help, std::string_view type, std::vector<std::string> label_names);
    virtual ~FamilyBase() = default;
    FamilyBase(const FamilyBase&) = delete;
    FamilyBase& operator=(const FamilyBase&) = delete;

    const std::string& name() const { return name_; }
    const std::string& help() const { return help_; }
    std::string_view type() const { return type_; }
    const std::vector<std::string>& label_names() const { return label_names_; }

    /// Appends `# HELP` (when help is not empty), `# TYPE`, then every sample line.
    void render(std::string& out) const;

  protected:
    virtual void render_samples(std::string& out) const = 0;

    /// Throws std::invalid_argument unless there is one value per label name.
    void check_arity(std::size_t values) const;
    /// `a="x",b="y"` with values escaped; empty for a family without labels.
    std::string label_text(std::span<const std::string_view> values) const;

  private:
    const std::string name_;
    const std::string help_;
    const std::string_view type_;
    const std::vector<std::string> label_names_;
};

}  // namespace slipstream::metrics::detail
