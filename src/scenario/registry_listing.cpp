// Listings of the family registries in three formats, all from the same declarations.
#include "sgdsim/scenario/registry_listing.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sgdsim/collectives/collective_registry.hpp"
#include "sgdsim/compression/compressor.hpp"
#include "sgdsim/core/error.hpp"
#include "sgdsim/trace_io/importer_registry.hpp"
#include "sgdsim/training/averaging_schedule.hpp"
#include "sgdsim/training/merge_policy.hpp"
#include "sgdsim/training/sharding.hpp"

namespace sgdsim {

namespace {

// A family as the listings see it: where its members are written in a scenario, and its members.
struct FamilyView {
  std::string name;
  std::string where;
  std::vector<const Declaration*> members;
};

template <class Entry>
std::vector<const Declaration*> members_of(const Registry<Entry>& registry) {
  std::vector<const Declaration*> members;
  for (const Entry& entry : registry.entries()) members.push_back(&entry);
  return members;
}

FamilyView view(std::string_view family) {
  if (family == "collectives") {
    return {"collectives", "communication.collective.algorithm", members_of(collective_registry())};
  }
  if (family == "policies") {
    return {"policies", "communication.merge.policy (keys in communication.merge)",
            members_of(merge_policy_registry())};
  }
  if (family == "compressors") {
    return {"compressors", "communication.compression[].name", members_of(compressor_registry())};
  }
  if (family == "schedules") {
    return {"schedules", "communication.averaging.schedules[].schedule",
            members_of(averaging_registry())};
  }
  if (family == "sharding") {
    return {"sharding", "communication.sharding.strategy", members_of(sharding_registry())};
  }
  SGDSIM_ASSERT(family == "importers", "an unknown registry family");
  return {"importers", "sgdsim trace import --from", members_of(importer_registry())};
}

std::vector<FamilyView> views(std::string_view family) {
  std::vector<FamilyView> result;
  for (const std::string& name : registry_families()) {
    if (family.empty() || family == name) result.push_back(view(name));
  }
  return result;
}

std::string key_line(const KeySpec& key) {
  return fmt::format("{} ({}, {}): {}", key.name, key.shape(), key.default_text(), key.description);
}

}  // namespace

const std::vector<std::string>& registry_families() {
  static const std::vector<std::string> families{"collectives", "policies", "compressors",
                                                 "schedules",   "sharding", "importers"};
  return families;
}

bool is_registry_family(std::string_view family) {
  for (const std::string& name : registry_families()) {
    if (name == family) return true;
  }
  return false;
}

std::string list_text(std::string_view family) {
  std::string text;
  for (const FamilyView& group : views(family)) {
    text += fmt::format("{} ({})\n", group.name, group.where);
    for (const Declaration* member : group.members) {
      std::string name = member->name;
      if (!member->aliases.empty())
        name += fmt::format(" (or {})", fmt::join(member->aliases, ", "));
      text += fmt::format("  {:<24} {}\n", name, member->description);
      for (const KeySpec& key : member->keys)
        text += fmt::format("  {:<24}   {}\n", "", key_line(key));
    }
  }
  return text;
}

nlohmann::ordered_json list_json(std::string_view family) {
  nlohmann::ordered_json root{{"format", "sgdsim-registries"}, {"schema_version", 1}};
  for (const FamilyView& group : views(family)) {
    nlohmann::ordered_json members = nlohmann::ordered_json::array();
    for (const Declaration* member : group.members) {
      nlohmann::ordered_json keys = nlohmann::ordered_json::array();
      for (const KeySpec& key : member->keys) {
        keys.push_back({{"name", key.name},
                        {"shape", key.shape()},
                        {"default", key.default_text()},
                        {"description", key.description}});
      }
      members.push_back({{"name", member->name},
                         {"label", member->display()},
                         {"aliases", member->aliases},
                         {"description", member->description},
                         {"keys", keys}});
    }
    root[group.name] = {{"where", group.where}, {"members", members}};
  }
  return root;
}

std::string list_markdown() {
  std::string text;
  for (const FamilyView& group : views("")) {
    text += fmt::format("#### {} (`{}`)\n\n", group.name, group.where);
    text += "| name | description | keys (shape, default) |\n|---|---|---|\n";
    for (const Declaration* member : group.members) {
      std::vector<std::string> keys;
      for (const KeySpec& key : member->keys) {
        keys.push_back(fmt::format("`{}` ({}, {})", key.name, key.shape(), key.default_text()));
      }
      std::string name = fmt::format("`{}`", member->name);
      for (const std::string& alias : member->aliases) name += fmt::format(" (`{}`)", alias);
      text += fmt::format("| {} | {} | {} |\n", name, member->description,
                          keys.empty() ? "-" : fmt::format("{}", fmt::join(keys, "<br>")));
    }
    text += "\n";
  }
  return text;
}

}  // namespace sgdsim
