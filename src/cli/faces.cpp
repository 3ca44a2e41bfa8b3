// `warpdex faces MESH|--generate SIZE [-o SURFACE] [--method M]`: the external faces of a mesh of
// tetrahedra, hexahedra, wedges and pyramids (a .vtk or .vtu file, or a generated grid), with counts, the time of each
// stage (read, upload, faces, write), the checks of the shared workload (include/warpdex/dpp/faces_workload.hpp) and
// the surface file.
#include "commands.hpp"
#include "progress.hpp"
#include "faces_workload.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/dpp/mesh_io.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <optional>
#include <string>

namespace warpdex::cli {
namespace {

struct faces_cli_options {
  dpp::faces_workload_options workload;
  std::string generate;
  std::string split = "5";
  std::string numbering = "regular";
  std::uint64_t seed = 1;
  std::string method = "auto";
  std::string hash = "fnv1a";
  std::string save_mesh;
  std::string save_encoding = "appended-zlib";
  bool hash_given = false;
  bool no_verify = false;
  bool no_points = false;
};

void run_faces_command(const global_options& globals, faces_cli_options opts)
{
  if (opts.generate.empty() == opts.workload.mesh.empty()) {
    usage_error("faces: give a mesh file or --generate SIZE (one of the two)");
  }
  if (!opts.generate.empty()) {
    dpp::tet_grid_options grid;
    dpp::parse_tet_grid_size(opts.generate, grid);
    grid.tets_per_hex = opts.split == "hex"     ? dpp::grid_hexahedra
                        : opts.split == "mixed" ? dpp::grid_mixed
                                                : static_cast<std::uint32_t>(std::stoul(opts.split));
    grid.numbering = dpp::parse_grid_numbering(opts.numbering);
    grid.seed = opts.seed;
    opts.workload.grid = grid;
    if (!opts.save_mesh.empty()) {
      dpp::write_tet_mesh(opts.save_mesh, dpp::make_tet_grid(grid), dpp::parse_mesh_encoding(opts.save_encoding));
      std::printf("mesh written to %s\n", opts.save_mesh.c_str());
    }
  } else if (!opts.save_mesh.empty()) {
    usage_error("faces: --save-mesh writes a generated mesh (with --generate)");
  }
  opts.workload.faces.method = dpp::parse_face_method(opts.method);
  opts.workload.faces.hash = dpp::parse_face_hash(opts.hash);
  if (opts.hash_given) {
    // auto is the hash sort on the GPU and the tuple sort on the host (resolve_face_method).
    const bool on_host = selected_backend(globals) == backend_choice::host;
    const dpp::face_method method = opts.workload.faces.method;
    if (method != dpp::face_method::sort_hash && (method != dpp::face_method::automatic || on_host)) {
      usage_error("faces --hash applies to --method sort_hash, not " + opts.method +
                  (opts.method == "auto" ? " (the tuple sort on the host backend)" : ""));
    }
  }
  opts.workload.verify = !opts.no_verify;
  opts.workload.orient_by_points = !opts.no_points;
  std::optional<progress> shown;
  shown.emplace(opts.workload.mesh.empty() ? "faces (generate, faces, check, write)"
                                           : "faces (read, faces, check, write)");
  if (!opts.workload.mesh.empty()) {
    // Reading a large file: its bytes read, then the parser's place in them, of the file's size.
    opts.workload.read_progress = [&shown, file = opts.workload.mesh](dpp::mesh_read_stage stage, std::uint64_t done,
                                                                      std::uint64_t total) {
      const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
      char step[64];
      std::snprintf(step, sizeof step, " (%.1f of %.1f MB)", static_cast<double>(done) / 1e6,
                    static_cast<double>(total) / 1e6);
      shown->update(fraction, (stage == dpp::mesh_read_stage::reading ? "reading " : "parsing ") + file + step);
      if (stage == dpp::mesh_read_stage::parsing && done == total) {
        shown->update(-1.0, "faces (faces, check, write)");
      }
    };
  }
  const auto report = dpp::run_faces_workload(selected_backend(globals), opts.workload);
  shown.reset();
  std::printf("warpdex %s\n", report.summary().c_str());
  if (report.stats.sorted_fallback > 0 || report.stats.hash_collision_runs > 0) {
    std::printf(
        "hash collisions: %llu runs of equal hashes held different faces; %llu faces in over-long runs "
        "were resolved by the tuple sort\n",
        static_cast<unsigned long long>(report.stats.hash_collision_runs),
        static_cast<unsigned long long>(report.stats.sorted_fallback));
  }
  if (!opts.workload.output.empty()) { std::printf("surface written to %s\n", opts.workload.output.c_str()); }
  if (opts.workload.verify && !report.verified) { command_status() = exit_failure; }
}

}  // namespace

void add_faces_command(CLI::App& app, const global_options& globals)
{
  auto opts = std::make_shared<faces_cli_options>();
  CLI::App* faces = app.add_subcommand(
      "faces",
      "External faces of a mesh of tetrahedra, hexahedra, wedges, pyramids (.vtk, .vtu) or of a generated grid, "
      "written as a surface");
  faces->add_option("mesh", opts->workload.mesh,
                    "A .vtk (legacy) or .vtu file of tetrahedra, hexahedra, wedges and pyramids");
  faces->add_option("--generate", opts->generate, "Generate a grid of N^3 or NXxNYxNZ cubes instead")
      ->check(CLI::Validator(
          [](const std::string& text) {
            dpp::tet_grid_options grid;
            try {
              dpp::parse_tet_grid_size(text, grid);
            } catch (const warpdex::error& e) {
              return std::string(e.what());
            }
            return std::string();
          },
          "SIZE", "grid size"));
  faces
      ->add_option("--split", opts->split,
                   "Cells of a generated grid: 5 or 6 tetrahedra a cube, hex (the cubes), mixed (layers of "
                   "hexahedra, pyramids, tetrahedra and wedges)")
      ->check(CLI::IsMember({"5", "6", "hex", "mixed"}));
  faces->add_option("--numbering", opts->numbering, "Point and cell numbering of a generated grid")
      ->check(CLI::IsMember({"regular", "random"}));
  faces->add_option("--seed", opts->seed, "Seed of the random numbering");
  faces->add_option("-o,--output", opts->workload.output, "Write the surface here (.vtp, .vtk or .ply)");
  faces
      ->add_option("--method", opts->method,
                   "auto, sort (sorted id triples), sort_hash, hash (hash fighting) or partitioned (the host's "
                   "partitioned engine; the tuple sort on cuda)")
      ->check(CLI::IsMember({"auto", "sort", "sort_hash", "hash", "partitioned"}));
  CLI::Option* hash = faces->add_option("--hash", opts->hash, "The hash of sort_hash: fnv1a, morton or xor")
                          ->check(CLI::IsMember({"fnv1a", "morton", "xor"}));
  faces->add_option("--repetitions", opts->workload.repetitions, "Timed runs of the face search (median)")
      ->check(CLI::Range(1, 1000));
  faces->add_option("--save-mesh", opts->save_mesh, "Also write the generated mesh here (.vtk or .vtu)")
      ->check(CLI::Validator(
          [](const std::string& path) {
            const std::string extension = std::filesystem::path(path).extension().string();
            return extension == ".vtk" || extension == ".vtu"
                       ? std::string()
                       : "unknown extension '" + extension + "' (expected .vtk or .vtu)";
          },
          "FILE", "mesh file"));
  CLI::Option* encoding =
      faces
          ->add_option("--save-encoding", opts->save_encoding,
                       "Its encoding: ascii, binary, binary-zlib, appended, appended-zlib (default for .vtu), "
                       "appended-base64; a .vtk file is ascii or binary (default)")
          ->check(CLI::IsMember({"ascii", "binary", "binary-zlib", "appended", "appended-zlib", "appended-base64"}));
  faces->add_flag("--no-points", opts->no_points,
                  "Orient faces by the cell's vertex order only (assumes no inverted cells)");
  faces->add_flag("--no-verify", opts->no_verify, "Skip the checks (closed, outward, the host tuple sort)");
  faces->callback([opts, &globals, encoding, hash] {
    opts->hash_given = hash->count() > 0;
    if (std::filesystem::path(opts->save_mesh).extension() == ".vtk") {
      // A legacy file has no compressed or appended data.
      if (encoding->count() == 0) { opts->save_encoding = "binary"; }
      if (opts->save_encoding != "ascii" && opts->save_encoding != "binary") {
        usage_error("faces --save-encoding " + opts->save_encoding + ": a legacy .vtk file is ascii or binary");
      }
    }
    run_faces_command(globals, *opts);
  });
}

}  // namespace warpdex::cli
