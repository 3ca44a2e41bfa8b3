// A loop of small finds captured once into a CUDA graph and replayed: 16 batches of 1024 queries into a
// slab_map of 2^20 pairs, eight replays, each on new queries written in place first (a quarter of them
// absent), checked against std::unordered_map. On the GPU one launch replays the 16 find_async calls;
// without one, the host backend runs the same calls uncaptured.
#include <warpdex/core/stream.hpp>
#include <warpdex/hash/slab_map.hpp>
#include <warpdex/warpdex.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <vector>

constexpr std::size_t batch = 1024;
constexpr std::size_t batches = 16;
constexpr std::size_t replays = 8;
constexpr std::size_t per_replay = batch * batches;
constexpr std::uint32_t missing = 0;  // the value a find writes for an absent key (values here are odd)

// Builds the map on `on`, then runs the loop of finds `replays` times, each time as `prepare(loop)` says
// (a graph's launch on the GPU, the loop itself on the host), and checks every value found.
template <class Backend>
bool run(const Backend& on, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
         const std::vector<std::uint32_t>& all_queries,
         const std::function<std::function<void()>(const std::function<void()>&)>& prepare)
{
  using map_type = warpdex::hash::slab_map<std::uint32_t, std::uint32_t, Backend>;
  map_type map(on, map_type::capacity_for(keys.size()));
  auto keys_on = warpdex::make_buffer<std::uint32_t>(on, keys.size());
  auto values_on = warpdex::make_buffer<std::uint32_t>(on, values.size());
  keys_on.copy_from(keys);
  values_on.copy_from(values);
  map.insert(keys_on.span(), values_on.span());

  // The loop reads and writes the same buffers at every replay: new queries are written into them.
  auto queries = warpdex::make_buffer<std::uint32_t>(on, per_replay);
  auto found = warpdex::make_buffer<std::uint32_t>(on, per_replay);
  const std::function<void()> loop = [&] {
    for (std::size_t b = 0; b < batches; ++b) {
      map.find_async(std::span<const std::uint32_t>(queries.span().subspan(b * batch, batch)),
                     found.span().subspan(b * batch, batch), missing);
    }
  };
  const std::function<void()> replay = prepare(loop);

  const std::unordered_map<std::uint32_t, std::uint32_t> oracle = [&] {
    std::unordered_map<std::uint32_t, std::uint32_t> m;
    for (std::size_t i = 0; i < keys.size(); ++i) { m.emplace(keys[i], values[i]); }
    return m;
  }();
  bool ok = true;
  for (std::size_t r = 0; r < replays; ++r) {
    const auto these = std::span(all_queries).subspan(r * per_replay, per_replay);
    queries.copy_from(these);
    replay();
    const std::vector<std::uint32_t> got = found.to_vector();  // waits for the stream
    for (std::size_t i = 0; i < per_replay; ++i) {
      const auto it = oracle.find(these[i]);
      ok = ok && got[i] == (it == oracle.end() ? missing : it->second);
    }
  }
  return ok;
}

int main()
{
  const std::size_t n = std::size_t{1} << 20;
  const warpdex::key_set<std::uint32_t> key_set{n, /*seed=*/5, warpdex::key_order::shuffled,
                                                warpdex::hash::max_user_key};
  std::vector<std::uint32_t> keys(n), values(n), queries(per_replay * replays);
  warpdex::generate_keys(warpdex::host{}, key_set, std::span(keys));
  warpdex::generate_queries(warpdex::host{}, key_set, /*absent_fraction=*/0.25, /*seed=*/6, std::span(queries));
  for (std::size_t i = 0; i < n; ++i) { values[i] = (keys[i] << 1) | 1u; }

  bool ok = false;
  const auto choice = warpdex::resolve_backend(warpdex::backend_choice::automatic);
  warpdex::visit_backend(choice, [&](const auto& backend) {
    using Backend = std::remove_cvref_t<decltype(backend)>;  // warpdex::cuda or warpdex::host
#if WARPDEX_HAS_CUDA
    if constexpr (std::is_same_v<Backend, warpdex::cuda>) {
      const warpdex::owned_stream stream;  // the legacy default stream cannot be captured
      const warpdex::cuda on{stream.get()};
      std::size_t nodes = 0;
      ok = run(on, keys, values, queries, [&](const std::function<void()>& loop) {
        // Captured, not run: the graph holds the 16 find kernels with their spans and the map's layout.
        const auto graph = std::make_shared<warpdex::captured_graph>(stream.get(), loop);
        nodes = graph->node_count();
        return std::function<void()>([graph, &stream] { graph->launch(stream.get()); });
      });
      std::printf("%zu find batches of %zu keys captured into a graph of %zu nodes, replayed %zu times on the GPU\n",
                  batches, batch, nodes, replays);
      return;
    }
#endif
    ok = run(backend, keys, values, queries, [](const std::function<void()>& loop) { return loop; });
    std::printf("%zu find batches of %zu keys run %zu times, uncaptured, on the %s backend\n", batches, batch, replays,
                backend.name.data());
  });
  std::printf("%s\n", ok ? "ok: every replay's values agree with std::unordered_map" : "WRONG");
  return ok ? 0 : 1;
}
