// HELP/TYPE header lines and label text shared by every family.
#include "metrics/family_base.h"

#include <stdexcept>
#include <utility>

#include "metrics/text_format.h"

namespace slipstream::metrics::detail {

FamilyBase::FamilyBase(std::string name, std::string help, std::string_view type, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), type_(type), label_names_(std::move(label_names)) {}

void FamilyBase::render(std::string& out) const {
    if (!help_.empty()) {
        out += "# HELP ";
        out += name_;
        out += ' ';
        append_help(out, help_);
        out += '\n';
    }
    out += "# TYPE ";
    out += name_;
    out += ' ';
    out += type_;
    out += '\n';
    render_samples(out);
}

void FamilyBase::check_arity(std::size_t values) const {
    if (values == label_names_.size()) return;
    std::string names;
    for (const std::string& n : label_names_)
        names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("metrics: \"" + name_ + "\" has " + std::to_string(label_names_.size()) +
                                " label(s) (" + names + "), got " + std::to_string(values) + " value(s)");
}

std::string FamilyBase::label_text(std::span<const std::string_view> values) const {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) text += ',';
        text += label_names_[i];
        text += "=\"";
        append_label_value(text, values[i]);
        text += '"';
    }
    return text;
}

}  // namespace slipstream::metrics::detail
