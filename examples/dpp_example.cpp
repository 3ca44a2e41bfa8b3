// The dpp family in one page: the faces of two tetrahedra that share a face, their external faces (the
// faces occurring once) by hash fighting, each distinct face with its count, and a HashFight table from
// face ids to their counts. Runs on the GPU when one is present, else on the CPU; same answers.
#include <warpdex/core/backend.hpp>
#include <warpdex/dpp/duplicates.hpp>
#include <warpdex/dpp/hashfight_map.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <type_traits>
#include <vector>

int main()
{
  using warpdex::dpp::uint32x3;
  // Tetrahedra (0 1 2 3) and (1 2 3 4): four faces each, point ids sorted in every face.
  const std::vector<uint32x3> faces = {{{0, 1, 2}}, {{0, 1, 3}}, {{0, 2, 3}}, {{1, 2, 3}},
                                       {{1, 2, 3}}, {{1, 2, 4}}, {{1, 3, 4}}, {{2, 3, 4}}};
  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  return warpdex::visit_backend(choice, [&](const auto& backend) {
    auto input = warpdex::make_buffer<uint32x3>(backend, faces.size());
    input.copy_from(faces);
    const std::span<const uint32x3> in(input.data(), input.size());

    // External faces: those occurring exactly once, in input order (the shared face 1 2 3 drops out).
    const auto external =
        warpdex::dpp::elements_occurring_once(backend, in, warpdex::dpp::duplicate_method::hash_fight).to_vector();
    std::printf("%zu external faces of %zu\n", external.size(), faces.size());

    // Each distinct face with its count, in order of first occurrence.
    const auto counted = warpdex::dpp::count_elements(backend, in, warpdex::dpp::element_order::first_occurrence);
    const auto distinct = counted.elements.to_vector();
    const auto counts = counted.counts.to_vector();
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      std::printf("face %u %u %u: %llu\n", distinct[i].word[0], distinct[i].word[1], distinct[i].word[2],
                  static_cast<unsigned long long>(counts[i]));
    }

    // A static table from a face's first point id to its count (duplicate keys: the largest value wins).
    std::vector<std::uint32_t> keys;
    std::vector<std::uint32_t> values;
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      keys.push_back(distinct[i].word[0]);
      values.push_back(static_cast<std::uint32_t>(counts[i]));
    }
    auto key_buffer = warpdex::make_buffer<std::uint32_t>(backend, keys.size());
    auto value_buffer = warpdex::make_buffer<std::uint32_t>(backend, values.size());
    key_buffer.copy_from(keys);
    value_buffer.copy_from(values);
    using map_type = warpdex::dpp::hashfight_map<std::uint32_t, std::uint32_t, std::decay_t<decltype(backend)>>;
    const map_type map(backend, std::span<const std::uint32_t>(key_buffer.data(), keys.size()),
                       std::span<const std::uint32_t>(value_buffer.data(), values.size()));
    const std::vector<std::uint32_t> queries = {1, 7};
    auto query_buffer = warpdex::make_buffer<std::uint32_t>(backend, queries.size());
    query_buffer.copy_from(queries);
    auto found = warpdex::make_buffer<std::uint32_t>(backend, queries.size());
    map.find(std::span<const std::uint32_t>(query_buffer.data(), queries.size()), found.span());
    const auto answers = found.to_vector();
    std::printf("key 1 -> %u, key 7 -> %s\n", answers[0], answers[1] == map_type::miss_value ? "absent" : "present");
    return external.size() == 6 && distinct.size() == 7 && answers[0] == 2 && answers[1] == map_type::miss_value ? 0
                                                                                                                 : 1;
  });
}
