// Mesh files: every format and encoding round-trips a generated mesh; truncated files, lying sizes,
// out-of-range ids, other cell types, bad base64 and zlib data are refused with warpdex::error; seeded
// random truncations and byte flips give either that error or a mesh, never a crash; surfaces are written
// with the right counts.
#include "dpp_test_support.hpp"
#include "support/expect_error.hpp"

#include <warpdex/dpp/external_faces.hpp>
#include <warpdex/dpp/mesh_io.hpp>
#include <warpdex/dpp/tet_mesh.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace warpdex::testing;
using namespace warpdex::dpp;
using warpdex::error;
namespace fs = std::filesystem;

struct file_case {
  const char* extension;
  mesh_encoding encoding;
  const char* label;
};

const std::vector<file_case>& all_file_cases()
{
  static const std::vector<file_case> cases{{".vtk", mesh_encoding::ascii, "vtk-ascii"},
                                            {".vtk", mesh_encoding::binary, "vtk-binary"},
                                            {".vtu", mesh_encoding::ascii, "vtu-ascii"},
                                            {".vtu", mesh_encoding::binary, "vtu-binary"},
                                            {".vtu", mesh_encoding::binary_zlib, "vtu-binary-zlib"},
                                            {".vtu", mesh_encoding::appended_raw, "vtu-appended"},
                                            {".vtu", mesh_encoding::appended_zlib, "vtu-appended-zlib"},
                                            {".vtu", mesh_encoding::appended_base64, "vtu-appended-base64"}};
  return cases;
}

class mesh_io_test : public ::testing::Test {
 protected:
  void SetUp() override
  {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory_ = fs::temp_directory_path() /
                 ("warpdex_mesh_io_" + std::string(info->name()) + "_" + std::to_string(std::random_device{}()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  /// The file of `mesh` in the case's format, and its bytes.
  std::string write(const tet_mesh& mesh, const file_case& c)
  {
    const fs::path path = directory_ / (std::string(c.label) + c.extension);
    write_tet_mesh(path, mesh, c.encoding);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return std::move(bytes).str();
  }

  static tet_mesh parse(const std::string& bytes, const file_case& c)
  {
    return std::string(c.extension) == ".vtk" ? parse_legacy_vtk(bytes, c.label) : parse_vtu(bytes, c.label);
  }

  fs::path directory_;
};

/// A mesh of about 1000 cells: its .vtu arrays span more than one 32 KiB zlib block.
tet_mesh test_mesh()
{
  return make_tet_grid({6, 6, 6, 5, grid_numbering::randomized, 5});
}

TEST_F(mesh_io_test, every_format_round_trips)
{
  const tet_mesh mesh = test_mesh();
  for (const auto& c : all_file_cases()) {
    SCOPED_TRACE(c.label);
    const fs::path path = directory_ / (std::string("round_trip_") + c.label + c.extension);
    write_tet_mesh(path, mesh, c.encoding);
    const tet_mesh back = read_tet_mesh(path);
    EXPECT_EQ(back.points, mesh.points);
    EXPECT_EQ(back.connectivity, mesh.connectivity);
  }
}

TEST_F(mesh_io_test, meshes_of_every_cell_type_round_trip)
{
  for (const std::uint32_t split : {grid_hexahedra, grid_mixed}) {
    const tet_mesh mesh = make_tet_grid({3, 4, 7, split, grid_numbering::randomized, case_seed(split + 30)});
    for (const auto& c : all_file_cases()) {
      SCOPED_TRACE(std::string(c.label) + " split " + std::to_string(split));
      const fs::path path = directory_ / (std::string("cells_") + c.label + c.extension);
      write_tet_mesh(path, mesh, c.encoding);
      const tet_mesh back = read_tet_mesh(path);
      EXPECT_EQ(back.points, mesh.points);
      EXPECT_EQ(back.connectivity, mesh.connectivity);
      EXPECT_EQ(back.cell_types, mesh.cell_types);
    }
  }
  // A file of tetrahedra only is read without cell types.
  const fs::path tets = directory_ / "tets.vtu";
  write_tet_mesh(tets, test_mesh(), mesh_encoding::appended_zlib);
  EXPECT_TRUE(read_tet_mesh(tets).cell_types.empty());
}

TEST_F(mesh_io_test, reading_reports_its_progress)
{
  // 160K ids: the parsers report every 2^16 values, and at the end.
  const tet_mesh mesh = make_tet_grid({20, 20, 20, 5, grid_numbering::randomized, case_seed(40)});
  for (const auto& c : {all_file_cases()[0], all_file_cases()[1], all_file_cases()[2], all_file_cases()[6]}) {
    SCOPED_TRACE(c.label);
    const fs::path path = directory_ / (std::string("progress_") + c.label + c.extension);
    write_tet_mesh(path, mesh, c.encoding);
    const std::uint64_t size = fs::file_size(path);
    std::vector<std::pair<mesh_read_stage, std::uint64_t>> reports;
    const tet_mesh back = read_tet_mesh(path, [&](mesh_read_stage stage, std::uint64_t done, std::uint64_t total) {
      EXPECT_EQ(total, size);
      EXPECT_LE(done, total);
      reports.emplace_back(stage, done);
    });
    EXPECT_EQ(back.connectivity, mesh.connectivity);
    ASSERT_FALSE(reports.empty());
    EXPECT_EQ(reports.front().first, mesh_read_stage::reading);
    EXPECT_EQ(reports.back(), std::make_pair(mesh_read_stage::parsing, size));
    std::size_t parsing = 0;
    for (std::size_t i = 1; i < reports.size(); ++i) {
      if (reports[i].first == reports[i - 1].first) {
        EXPECT_GE(reports[i].second, reports[i - 1].second) << "report " << i << " of " << reports.size();
      }
      EXPECT_FALSE(reports[i].first == mesh_read_stage::reading && reports[i - 1].first == mesh_read_stage::parsing);
      parsing += reports[i].first == mesh_read_stage::parsing ? 1 : 0;
    }
    EXPECT_GE(parsing, 2U) << "reports during the parse, not only at its end";
    const auto last_read = std::find_if(reports.rbegin(), reports.rend(),
                                        [](const auto& r) { return r.first == mesh_read_stage::reading; });
    EXPECT_EQ(last_read->second, size);
  }
  // A callback that throws ends the read with its exception.
  const fs::path path = directory_ / "progress_stop.vtu";
  write_tet_mesh(path, test_mesh(), mesh_encoding::appended_raw);
  EXPECT_THROW((void)read_tet_mesh(
                   path, [](mesh_read_stage, std::uint64_t, std::uint64_t) { throw std::runtime_error("stop"); }),
               std::runtime_error);
}

TEST_F(mesh_io_test, hand_written_files_in_other_layouts)
{
  // Version 5.1 legacy layout (OFFSETS / CONNECTIVITY, METADATA), float points, CRLF line ends.
  const std::string v51 =
      "# vtk DataFile Version 5.1\r\nhand\r\nASCII\r\nDATASET UNSTRUCTURED_GRID\r\nPOINTS 4 float\r\n"
      "0 0 0 1 0 0 0 1 0 0 0 1\r\nMETADATA\r\nINFORMATION 0\r\n\r\nCELLS 2 4\r\nOFFSETS vtktypeint64\r\n0 4\r\n"
      "CONNECTIVITY vtktypeint64\r\n0 1 2 3\r\nCELL_TYPES 1\r\n10\r\nCELL_DATA 1\r\nSCALARS a int\r\n";
  const tet_mesh a = parse_legacy_vtk(v51, "v51");
  EXPECT_EQ(a.connectivity, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(a.points.size(), 12U);
  // .vtu with Int32 ids, Float32 points, no header_type (UInt32), and VTK's InformationKey element after
  // the values of an ascii array (its numbers are not values).
  const std::string vtu =
      "<VTKFile type='UnstructuredGrid' byte_order='LittleEndian'><UnstructuredGrid>"
      "<Piece NumberOfPoints='4' NumberOfCells='1'><Points><DataArray type='Float32' NumberOfComponents='3' "
      "format='ascii'>0 0 0 1 0 0 0 1 0 0 0 1<InformationKey name='L2_NORM_RANGE' length='2'><Value index='0'>"
      "0</Value><Value index='1'>1</Value></InformationKey></DataArray></Points><Cells>"
      "<DataArray type='Int32' Name='connectivity' format='ascii'>3 2 1 0</DataArray>"
      "<DataArray type='Int32' Name='offsets' format='ascii'>4</DataArray>"
      "<DataArray type='UInt8' Name='types' format='ascii'>10</DataArray></Cells></Piece></UnstructuredGrid>"
      "</VTKFile>";
  EXPECT_EQ(parse_vtu(vtu, "vtu").connectivity, (std::vector<std::uint32_t>{3, 2, 1, 0}));
}

TEST_F(mesh_io_test, malformed_files_are_refused)
{
  const tet_mesh mesh = make_tet_grid({2, 2, 2, 5, grid_numbering::regular, 1});
  const std::string ascii = write(mesh, all_file_cases()[0]);
  const auto expect_refused = [](const std::string& bytes, const file_case& c,
                                 const std::vector<std::string_view>& fragments) {
    expect_error_mentioning<error>([&] { (void)parse(bytes, c); }, fragments);
  };
  const auto& vtk = all_file_cases()[0];
  const auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  expect_refused(ascii.substr(0, ascii.size() / 2), vtk, {"vtk-ascii", "ends inside"});
  expect_refused(replaced(ascii, "POINTS 27", "POINTS 28"), vtk, {"(POINTS)", "'CELLS' is not a number"});
  expect_refused(replaced(ascii, "POINTS 27", "POINTS 99999999999"), vtk, {"more than the file can hold"});
  expect_refused(replaced(ascii, "CELL_TYPES 40\n10", "CELL_TYPES 40\n12"), vtk,
                 {"cell 0 is a hexahedron (VTK type 12) with 4 points, not 8"});
  expect_refused(replaced(ascii, "CELL_TYPES 40\n10", "CELL_TYPES 40\n11"), vtk,
                 {"cell 0 is a voxel (VTK type 11)", "tetrahedra, hexahedra, wedges and pyramids"});
  expect_refused(replaced(ascii, "CELL_TYPES 40\n10", "CELL_TYPES 40\n300"), vtk, {"cell 0 is a cell of VTK type 300"});
  expect_refused(replaced(ascii, "CELLS 40 200\n4 ", "CELLS 40 200\n4 27"), vtk, {"refers to point 27", "27 points"});
  expect_refused(replaced(ascii, "CELLS 40 200\n4", "CELLS 40 200\n5"), vtk, {"CELLS"});
  expect_refused(replaced(ascii, "DATASET UNSTRUCTURED_GRID", "DATASET POLYDATA"), vtk, {"not an UNSTRUCTURED_GRID"});
  expect_refused("hello", vtk, {"not a legacy VTK file"});
  // File bytes quoted in a message are escaped: the message stays one printable line.
  expect_refused(replaced(ascii, "POINTS 27 double\n0", "POINTS 27 double\n1\v8"), vtk, {"'1\\x0b8' is not a number"});
  const std::string binary = write(mesh, all_file_cases()[1]);
  expect_refused(binary.substr(0, binary.size() - 50), all_file_cases()[1], {"truncated inside CELL_TYPES"});

  const auto& inline_case = all_file_cases()[3];
  const std::string vtu = write(mesh, inline_case);
  expect_refused(replaced(vtu, "NumberOfPoints=\"27\"", "NumberOfPoints=\"28\""), inline_case,
                 {"Points holds 81 values", "28 points"});
  expect_refused(replaced(vtu, "NumberOfCells=\"40\"", "NumberOfCells=\"41\""), inline_case, {"41 cells"});
  expect_refused(replaced(vtu, "format=\"binary\">", "format=\"binary\">!"), inline_case, {"invalid base64"});
  expect_refused(replaced(vtu, "type=\"UnstructuredGrid\"", "type=\"PolyData\""), inline_case, {"PolyData"});
  // An array's name from the file, quoted beside a bad value, is escaped as the value is.
  const auto& ascii_vtu = all_file_cases()[2];
  const std::string text_vtu = write(mesh, ascii_vtu);
  const auto offsets_at = text_vtu.find("Name=\"offsets\"");
  ASSERT_NE(offsets_at, std::string::npos);
  std::string renamed = replaced(text_vtu, "Name=\"offsets\"", "Name=\"off\nsets\"");
  const auto first_value = renamed.find('>', offsets_at) + 1;
  renamed.insert(renamed.find_first_not_of(" \n", first_value), "9Y");
  expect_refused(renamed, ascii_vtu, {"(off\\x0asets)", "is not a number"});
  // An inline header that claims more bytes than follow: "AAAAAA==" is a header word of 0 before the
  // points; make it claim 2^31.
  const auto header_at = vtu.find("format=\"binary\">") + 16;
  std::string lying = vtu;
  lying.replace(header_at, 8, "AAAAgA==");
  expect_refused(lying, inline_case, {"truncated", "2147483648"});

  const auto& zlib_case = all_file_cases()[6];
  std::string packed = write(mesh, zlib_case);
  // Corrupt the compressed data of the first array (just after its 64-bit header of 4 words).
  const auto data_at = packed.find('_', packed.find("<AppendedData")) + 1 + 4 * 8 + 2;
  packed[data_at] = static_cast<char>(packed[data_at] ^ 0x5a);
  expect_refused(packed, zlib_case, {"zlib block"});
}

TEST_F(mesh_io_test, random_truncations_and_byte_flips_never_crash)
{
  const tet_mesh mesh = make_tet_grid({2, 3, 2, 6, grid_numbering::randomized, 2});
  std::mt19937_64 random(case_seed(11) ^ fresh_seed());
  for (const auto& c : all_file_cases()) {
    SCOPED_TRACE(c.label);
    const std::string bytes = write(mesh, c);
    for (int trial = 0; trial < 40; ++trial) {
      std::string damaged = bytes;
      if (trial % 2 == 0) {
        damaged.resize(random() % bytes.size());
      } else {
        for (int flips = 0; flips < 3; ++flips) { damaged[random() % damaged.size()] = static_cast<char>(random()); }
      }
      try {
        const tet_mesh back = parse(damaged, c);
        // A damaged file that still parses holds a checked mesh: ids in range, 4 a cell.
        for (const auto id : back.connectivity) { ASSERT_LT(id, back.point_count()); }
      } catch (const error&) {
      } catch (const std::exception& other) {  // anything else (bad_alloc from a size read unchecked) is a bug
        ADD_FAILURE() << "trial " << trial << " (" << (trial % 2 == 0 ? "cut" : "3 bytes flipped")
                      << "): " << other.what();
      }
    }
    // Cut in the middle of the data, a file is always refused.
    EXPECT_THROW((void)parse(bytes.substr(0, bytes.size() / 2), c), error);
  }
}

TEST_F(mesh_io_test, a_zlib_block_claiming_more_than_deflate_can_give_is_refused_before_allocating)
{
  // The first appended array's header (blocks, block size, last block's size, packed sizes) with its block size
  // at the header word's largest value and the last size 0: the one block claims 2^32 - 1 or 2^64 - 1 bytes
  // from a few hundred. Refused as damaged, not a bad_alloc.
  const file_case c{".vtu", mesh_encoding::appended_zlib, "vtu-appended-zlib"};
  std::string bytes = write(make_tet_grid({2, 2, 2, 5, grid_numbering::regular, 1}), c);
  const std::size_t data = bytes.find('_', bytes.find("<AppendedData")) + 1;
  ASSERT_NE(data, std::string::npos);
  const std::size_t word = bytes.find("header_type=\"UInt64\"") != std::string::npos ? 8 : 4;
  ASSERT_EQ(bytes[data], 1) << "the first array is one block";  // little-endian blocks = 1
  for (std::size_t i = 0; i < word; ++i) {
    bytes[data + word + i] = static_cast<char>(0xff);  // block size
    bytes[data + 2 * word + i] = 0;                    // last block's size: 0, so the block size holds
  }
  try {
    (void)parse_vtu(bytes, c.label);
    ADD_FAILURE() << "the damaged file was read";
  } catch (const error& refused) {
    EXPECT_NE(std::string(refused.what()).find("claims"), std::string::npos) << refused.what();
  }
}

TEST_F(mesh_io_test, every_prefix_of_a_small_file_is_refused_cleanly)
{
  // Cut at every byte (a format line without its newline included): warpdex::error or a mesh, nothing else.
  const tet_mesh mesh = make_tet_grid({1, 1, 2, grid_mixed, grid_numbering::regular, 1});
  for (const auto& c : all_file_cases()) {
    SCOPED_TRACE(c.label);
    const std::string bytes = write(mesh, c);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      try {
        (void)parse(bytes.substr(0, n), c);
      } catch (const error&) {
      } catch (const std::exception& other) {
        ADD_FAILURE() << "cut at " << n << ": " << other.what();
      }
    }
  }
}

TEST_F(mesh_io_test, unknown_extensions_and_missing_files)
{
  expect_error_mentioning<error>([&] { (void)read_tet_mesh(directory_ / "mesh.obj"); }, {"'.obj'", ".vtu"});
  expect_error_mentioning<error>([&] { (void)read_tet_mesh(directory_ / "absent.vtu"); }, {"cannot open"});
  const tet_mesh mesh = test_mesh();
  expect_error_mentioning<error>([&] { write_tet_mesh(directory_ / "m.vtk", mesh, mesh_encoding::appended_raw); },
                                 {"ascii or binary"});
  expect_error_mentioning<error>([&] { write_surface(directory_ / "s.stl", mesh, {}, {}); }, {"'.stl'"});
  expect_error_mentioning<error>([] { (void)parse_mesh_encoding("gzip"); }, {"'gzip'"});
  // A file cut short on disk is refused by the streaming reader with the parser's message and its name.
  for (const auto& c : {all_file_cases()[1], all_file_cases()[6]}) {
    const fs::path path = directory_ / (std::string("cut_") + c.label + c.extension);
    write_tet_mesh(path, mesh, c.encoding);
    fs::resize_file(path, fs::file_size(path) * 2 / 3);
    expect_error_mentioning<error>([&] { (void)read_tet_mesh(path); }, {path.string()});
  }
}

TEST_F(mesh_io_test, surfaces_are_written_with_their_counts)
{
  const tet_mesh mesh = make_tet_grid({3, 2, 1, 6, grid_numbering::regular, 1});
  const auto connectivity = make_buffer_from<std::uint32_t>(warpdex::host{}, mesh.connectivity);
  const auto faces = external_faces(warpdex::host{}, tet_mesh_view{connectivity.span(), mesh.point_count(), {}});
  const auto triangles = faces.triangles.to_vector();
  const auto cells = faces.cells.to_vector();
  const std::string count = std::to_string(triangles.size());
  // Every grid point lies on the surface of a grid one cube thick.
  const std::string points = std::to_string(mesh.point_count());
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected{
      {".vtp", {"NumberOfPoints=\"" + points + "\"", "NumberOfPolys=\"" + count + "\"", "cell_id"}},
      {".vtk", {"POINTS " + points + " double", "POLYGONS " + count + " " + std::to_string(4 * triangles.size())}},
      {".ply", {"element vertex " + points, "element face " + count}}};
  for (const auto& [extension, fragments] : expected) {
    const fs::path path = directory_ / ("surface" + extension);
    write_surface(path, mesh, triangles, cells);
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    for (const auto& fragment : fragments) { EXPECT_NE(text.str().find(fragment), std::string::npos) << fragment; }
  }
}

}  // namespace
