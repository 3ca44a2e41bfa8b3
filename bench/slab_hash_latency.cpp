// The latency of small slab_map batches (issue 17, item 4): for n = 2^10, 2^14 and 2^18, insert_async and
// find_async from the host call to the results in host memory (the stream waited for), as
// hash::measure_batch_latency measures it for `warpdex hash --batch-log2` too. Each row's baseline is the
// floor of any GPU batch whose results reach the host: a device copy of the batch's keys, the results'
// bytes copied to the host, and the wait (two enqueues and one wait, no kernel of ours); the synchronous
// call (the same batch with the report read back) is in the row's metrics. A latency is not bound by
// bandwidth, so the rows have no sol_fraction; floor_fraction says how close to the floor they are.
// The rows ending /resident=2^22 run the same batches into (and finds on) a map that also holds 2^22
// other keys, as a table fed many small batches does; the others into a map holding the batch alone,
// whose insertions meet in few lists. The rows hash/slab_map/stream/... measure the throughput of small
// batches (hash::measure_batch_stream): 64 batches enqueued back to back, each with its outputs copied
// home, one wait; their baseline is one batch of the same keys (the bulk rate); the rows ending /graph
// replay the same stream captured once into a CUDA graph (one launch and one wait a stream). The rows
// hash/slab_map/latency/find_values/... run find_async(keys, values, default_value): one output, one copy
// home, cuCollections' find contract; their metrics add the same call on a non-blocking stream of the
// map's own (the legacy default stream otherwise) and that stream's floor. The rows
// hash/slab_map/latency/find_values_to_host/... pass pinned host memory as the values: the find's kernel
// writes them there itself (no copy), the `_async` call and a wait; the metric sync_us_per_batch is the
// synchronous find doing the same (its report read back: one launch, one copy, one wait). The rows
// hash/slab_map/stream/find_values/.../own_stream and .../graph run the values-alone find stream on the
// map's own stream, uncaptured and replayed from a graph; hash/slab_map/stream/find_values_to_host/...
// and .../graph the same finds writing into pinned host memory (one kernel a batch, nothing else). Their
// metrics add the floor of such a stream (a device copy of each batch's keys and the values' bytes home,
// one wait), uncaptured and replayed from a graph. The rows hash/slab_map/stream/insert_to_host/... and
// .../insert_each_checked_to_host/... run the insertion stream on the map's own stream with the statuses
// written by the kernel into pinned host memory (no copy home), under the whole batch's input check (a
// check kernel and the insertion a batch past 2048 keys) and under each element's (batch_check::
// each_element: the insertion kernel alone), uncaptured and (rows ending /graph) replayed from a graph;
// .../insert_each_checked/... the same one-kernel insertions with their statuses left in device memory.
// The rows hash/slab_map/latency/insert_to_host/... run insert_async with each key checked alone and the
// statuses written by the insertion kernel into pinned host memory (one launch, no copy home) and a wait.
// The rows hash/slab_map/stream/find_many_to_host/... and .../insert_many_to_host/... run the same batches
// as one many-batch call (find_many_async, insert_many_async: one kernel for all 64, results into pinned
// host memory, each batch checked whole and alone), per batch, as a call and (/graph) replayed.
#include "benchmarks.hpp"
#include "throughput_row.hpp"

#include <warpdex/hash/batch_latency.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>

namespace warpdex::bench {
namespace {

/// The batch sizes of the rows (log2): the small batch, the throughput target's, and a large one.
constexpr unsigned latency_batch_logs[] = {10, 14, 18};
constexpr std::uint64_t latency_seed = 0x1a7e;
const std::string floor_baseline = "device copy of the batch + results to the host + wait (floor)";

/// The tiles of the rows: automatic (the headline rows), and one lane per operation, which may suit
/// small batches better (a tile runs its lanes' operations one after another, and a small batch leaves
/// the GPU idle anyway); the rows tell whether small batches should choose it automatically.
constexpr hash::tile_lanes latency_tiles[] = {hash::tile_lanes::automatic, hash::tile_lanes::one};

/// The residents of the /resident rows (log2), and the batch sizes they run at.
constexpr unsigned resident_log = 22;
constexpr unsigned resident_batch_logs[] = {10, 14};

std::string latency_row_name(const char* kind, unsigned batch_log, hash::tile_lanes tile, unsigned residents_log = 0)
{
  std::string name = std::string("hash/slab_map/latency/") + kind + "/n=2^" + std::to_string(batch_log);
  if (tile != hash::tile_lanes::automatic) { name += "/tile=" + std::to_string(static_cast<unsigned>(tile)); }
  if (residents_log > 0) { name += "/resident=2^" + std::to_string(residents_log); }
  return name;
}

std::string stream_row_name(const char* kind, unsigned batch_log)
{
  return std::string("hash/slab_map/stream/") + kind + "/n=2^" + std::to_string(batch_log) + "/resident=2^" +
         std::to_string(resident_log);
}

row stream_row(const std::string& name, double ms, double bulk_ms, const hash::batch_stream& measured)
{
  constexpr double us_per_ms = 1000.0;
  row r = throughput_row(name, measured.batch_size, ms, "Gops/s", "the same keys in one batch (bulk)", bulk_ms, 0.0,
                         measured.verified);
  r.metrics = {{"us_per_batch", ms * us_per_ms},
               {"batches", static_cast<double>(measured.batches)},
               {"bulk_us_per_batch", bulk_ms * us_per_ms}};
  return r;
}

row latency_row(const std::string& name, double async_ms, double sync_ms, const hash::batch_latency& measured)
{
  constexpr double us_per_ms = 1000.0;
  row r = throughput_row(name, measured.batch_size, async_ms, "Gops/s", floor_baseline, measured.floor_ms, 0.0,
                         measured.verified);
  r.metrics = {{"us_per_batch", async_ms * us_per_ms},
               {"sync_us_per_batch", sync_ms * us_per_ms},
               {"floor_us_per_batch", measured.floor_ms * us_per_ms},
               {"floor_fraction", measured.floor_ms / async_ms}};
  return r;
}

}  // namespace

void run_slab_hash_latency(context& ctx)
{
  for (const unsigned batch_log : latency_batch_logs) {
    for (const hash::tile_lanes tile : latency_tiles) {
      const bool insert_wanted = ctx.selected(latency_row_name("insert", batch_log, tile));
      const bool find_wanted = ctx.selected(latency_row_name("find", batch_log, tile));
      if (!insert_wanted && !find_wanted && !ctx.selected(latency_row_name("find_values", batch_log, tile)) &&
          !ctx.selected(latency_row_name("find_values_to_host", batch_log, tile)) &&
          !ctx.selected(latency_row_name("insert_to_host", batch_log, tile))) {
        continue;
      }
      const hash::batch_latency measured = hash::measure_batch_latency(
          cuda{}, std::uint64_t{1} << batch_log, ctx.timing(), latency_seed, hash::batch_options{tile});
      if (insert_wanted) {
        ctx.add(latency_row(latency_row_name("insert", batch_log, tile), measured.insert_async_ms, measured.insert_ms,
                            measured));
      }
      if (find_wanted) {
        ctx.add(
            latency_row(latency_row_name("find", batch_log, tile), measured.find_async_ms, measured.find_ms, measured));
      }
      const std::string values_name = latency_row_name("find_values", batch_log, tile);
      if (ctx.selected(values_name)) {
        row r = latency_row(values_name, measured.find_values_async_ms, measured.find_ms, measured);
        r.metrics.push_back({"own_stream_us_per_batch", measured.own_stream_find_values_async_ms * 1000.0});
        r.metrics.push_back({"own_stream_floor_us_per_batch", measured.own_stream_floor_ms * 1000.0});
        ctx.add(std::move(r));
      }
      const std::string insert_to_host_name = latency_row_name("insert_to_host", batch_log, tile);
      if (ctx.selected(insert_to_host_name)) {
        ctx.add(latency_row(insert_to_host_name, measured.insert_to_host_async_ms, measured.insert_ms, measured));
      }
      const std::string to_host_name = latency_row_name("find_values_to_host", batch_log, tile);
      if (ctx.selected(to_host_name)) {
        ctx.add(latency_row(to_host_name, measured.find_values_to_host_async_ms, measured.find_values_to_host_ms,
                            measured));
      }
    }
  }
  const hash::tile_lanes tile = hash::tile_lanes::automatic;
  for (const unsigned batch_log : resident_batch_logs) {
    const std::string insert_name = latency_row_name("insert", batch_log, tile, resident_log);
    const std::string find_name = latency_row_name("find", batch_log, tile, resident_log);
    const std::string insert_to_host_name = latency_row_name("insert_to_host", batch_log, tile, resident_log);
    if (!ctx.selected(insert_name) && !ctx.selected(find_name) && !ctx.selected(insert_to_host_name)) { continue; }
    const hash::batch_latency measured =
        hash::measure_batch_latency(cuda{}, std::uint64_t{1} << batch_log, ctx.timing(), latency_seed,
                                    hash::batch_options{tile}, std::uint64_t{1} << resident_log);
    if (ctx.selected(insert_name)) {
      ctx.add(latency_row(insert_name, measured.insert_async_ms, measured.insert_ms, measured));
    }
    if (ctx.selected(find_name)) {
      ctx.add(latency_row(find_name, measured.find_async_ms, measured.find_ms, measured));
    }
    if (ctx.selected(insert_to_host_name)) {
      ctx.add(latency_row(insert_to_host_name, measured.insert_to_host_async_ms, measured.insert_ms, measured));
    }
  }
  for (const unsigned batch_log : resident_batch_logs) {
    const std::string insert_name = stream_row_name("insert", batch_log);
    const std::string find_name = stream_row_name("find", batch_log);
    const std::string values_name = stream_row_name("find_values", batch_log);
    const std::string to_host_name = stream_row_name("find_values_to_host", batch_log);
    const std::string find_many_name = stream_row_name("find_many_to_host", batch_log);
    const std::string own_values_rows[] = {
        values_name + "/own_stream", values_name + "/graph", to_host_name,
        to_host_name + "/graph",     find_many_name,         find_many_name + "/graph"};
    const std::string insert_to_host_rows[] = {stream_row_name("insert_to_host", batch_log),
                                               stream_row_name("insert_to_host", batch_log) + "/graph",
                                               stream_row_name("insert_each_checked_to_host", batch_log),
                                               stream_row_name("insert_each_checked_to_host", batch_log) + "/graph",
                                               stream_row_name("insert_each_checked", batch_log),
                                               stream_row_name("insert_each_checked", batch_log) + "/graph",
                                               stream_row_name("insert_many_to_host", batch_log),
                                               stream_row_name("insert_many_to_host", batch_log) + "/graph"};
    const bool own_stream_wanted = std::any_of(std::begin(own_values_rows), std::end(own_values_rows),
                                               [&](const std::string& name) { return ctx.selected(name); }) ||
                                   std::any_of(std::begin(insert_to_host_rows), std::end(insert_to_host_rows),
                                               [&](const std::string& name) { return ctx.selected(name); });
    if (!ctx.selected(insert_name) && !ctx.selected(find_name) && !ctx.selected(insert_name + "/graph") &&
        !ctx.selected(find_name + "/graph") && !ctx.selected(values_name) && !own_stream_wanted) {
      continue;
    }
    const hash::batch_stream measured =
        hash::measure_batch_stream(cuda{}, std::uint64_t{1} << batch_log, ctx.timing(), latency_seed,
                                   hash::batch_options{tile}, std::uint64_t{1} << resident_log);
    if (ctx.selected(insert_name)) {
      ctx.add(stream_row(insert_name, measured.insert_ms, measured.bulk_insert_ms, measured));
    }
    if (ctx.selected(find_name)) { ctx.add(stream_row(find_name, measured.find_ms, measured.bulk_find_ms, measured)); }
    if (ctx.selected(values_name)) {
      ctx.add(stream_row(values_name, measured.values_find_ms, measured.bulk_find_ms, measured));
    }
    const std::string graph_insert_name = stream_row_name("insert", batch_log) + "/graph";
    const std::string graph_find_name = stream_row_name("find", batch_log) + "/graph";
    if (ctx.selected(graph_insert_name)) {
      ctx.add(stream_row(graph_insert_name, measured.graph_insert_ms, measured.bulk_insert_ms, measured));
    }
    if (ctx.selected(graph_find_name)) {
      ctx.add(stream_row(graph_find_name, measured.graph_find_ms, measured.bulk_find_ms, measured));
    }
    const double own_values_ms[] = {measured.own_values_find.calls,   measured.own_values_find.graph,
                                    measured.values_to_host.calls,    measured.values_to_host.graph,
                                    measured.find_many_to_host.calls, measured.find_many_to_host.graph};
    for (std::size_t i = 0; i < std::size(own_values_rows); ++i) {
      if (!ctx.selected(own_values_rows[i])) { continue; }
      row r = stream_row(own_values_rows[i], own_values_ms[i], measured.bulk_find_ms, measured);
      r.metrics.push_back({"floor_us_per_batch", measured.floor.calls * 1000.0});
      r.metrics.push_back({"graph_floor_us_per_batch", measured.floor.graph * 1000.0});
      r.metrics.push_back({"floor_fraction", measured.floor.calls / own_values_ms[i]});
      ctx.add(std::move(r));
    }
    const double insert_to_host_ms[] = {measured.insert_to_host.calls,
                                        measured.insert_to_host.graph,
                                        measured.insert_each_checked.calls,
                                        measured.insert_each_checked.graph,
                                        measured.insert_each_checked_device.calls,
                                        measured.insert_each_checked_device.graph,
                                        measured.insert_many_to_host.calls,
                                        measured.insert_many_to_host.graph};
    for (std::size_t i = 0; i < std::size(insert_to_host_rows); ++i) {
      if (!ctx.selected(insert_to_host_rows[i])) { continue; }
      row r = stream_row(insert_to_host_rows[i], insert_to_host_ms[i], measured.bulk_insert_ms, measured);
      r.metrics.push_back({"floor_us_per_batch", measured.floor.calls * 1000.0});
      r.metrics.push_back({"graph_floor_us_per_batch", measured.floor.graph * 1000.0});
      ctx.add(std::move(r));
    }
  }
}

}  // namespace warpdex::bench
