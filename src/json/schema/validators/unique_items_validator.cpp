// uniqueItems: O(n log n) by hashing and sorting, allocation-free up to 256 items.
#include <algorithm>
#include <array>
#include <vector>

#include "json/schema/validators/common.h"
#include "json/schema/value_hash.h"

namespace slipstream::json::schema::validators {
namespace {

constexpr std::uint32_t kPairwiseMax = 16;  // below this, n^2/2 equality checks are cheapest
constexpr std::uint32_t kStackItems = 256;  // hashes for up to this many items live on the stack

struct Entry {
    std::uint64_t hash;
    std::uint32_t index;
};

class UniqueItemsValidator final : public Validator {
  public:
    explicit UniqueItemsValidator(std::string location) : Validator(std::move(location), kArrayType) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        std::uint32_t first = 0, second = 0;
        if (!find_duplicate(v, &first, &second)) return true;
        if (auto* sink = ctx.sink()) {
            PathSegment at{{}, static_cast<std::int64_t>(second)};
            ctx.report(location_, "unique_items", "List should have unique items", v.items()[second],
                       sink->make_ctx({{"duplicate_of", count_value(first)}}), &at);
        }
        return false;
    }

  private:
    static bool find_duplicate(const Value& v, std::uint32_t* first, std::uint32_t* second) {
        auto items = v.items();
        const std::uint32_t n = v.size();
        if (n <= kPairwiseMax) {
            for (std::uint32_t j = 1; j < n; ++j)
                for (std::uint32_t i = 0; i < j; ++i)
                    if (json::equal(items[i], items[j])) return *first = i, *second = j, true;
            return false;
        }
        std::array<Entry, kStackItems> stack;
        std::vector<Entry> heap;
        Entry* entries = stack.data();
        if (n > kStackItems) {
            heap.resize(n);
            entries = heap.data();
        }
        for (std::uint32_t i = 0; i < n; ++i)
            entries[i] = Entry{detail::value_hash(items[i]), i};
        std::sort(entries, entries + n, [](const Entry& a, const Entry& b) {
            return a.hash != b.hash ? a.hash < b.hash : a.index < b.index;
        });
        // Equal values have equal hashes: only runs of equal hashes need deep comparison.
        bool found = false;
        for (std::uint32_t start = 0; start < n;) {
            std::uint32_t end = start + 1;
            while (end < n && entries[end].hash == entries[start].hash)
                ++end;
            for (std::uint32_t j = start + 1; j < end; ++j)
                for (std::uint32_t i = start; i < j; ++i)
                    if (json::equal(items[entries[i].index], items[entries[j].index]) &&
                        (!found || entries[j].index < *second)) {
                        *first = entries[i].index;
                        *second = entries[j].index;
                        found = true;
                    }
            start = end;
        }
        return found;
    }
};

}  // namespace

void make_unique_items(const KeywordInput& in) {
    const Value& v = *in.get("uniqueItems");
    if (!v.is_bool()) in.fail("uniqueItems", "must be a boolean");
    if (v.as_bool()) in.add(std::make_unique<UniqueItemsValidator>(in.location("uniqueItems")));
}

}  // namespace slipstream::json::schema::validators
