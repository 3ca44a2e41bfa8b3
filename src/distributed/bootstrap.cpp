#include <warpdex/core/error.hpp>
#include <warpdex/distributed/bootstrap.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>

namespace warpdex::distributed {

namespace {
// How often a waiting rank looks for the file: short against NCCL's own start-up (tens of milliseconds).
constexpr std::chrono::milliseconds poll_interval{5};
}  // namespace

void write_unique_id(const std::string& path, const unique_id& id)
{
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    WARPDEX_EXPECTS(file.good(), "write_unique_id: cannot create " + temporary);
    file.write(id.bytes.data(), static_cast<std::streamsize>(id.bytes.size()));
    file.close();
    WARPDEX_EXPECTS(file.good(), "write_unique_id: cannot write " + temporary);
  }
  std::error_code failure;
  std::filesystem::rename(temporary, path, failure);
  WARPDEX_EXPECTS(!failure, "write_unique_id: cannot rename " + temporary + " to " + path + ": " + failure.message());
}

unique_id read_unique_id(const std::string& path, std::chrono::milliseconds timeout)
{
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::error_code failure;
  while (!std::filesystem::exists(path, failure)) {
    WARPDEX_EXPECTS(std::chrono::steady_clock::now() < deadline, "read_unique_id: " + path + " did not appear within " +
                                                                     std::to_string(timeout.count()) +
                                                                     " ms (has rank 0 written it?)");
    std::this_thread::sleep_for(poll_interval);
  }
  std::ifstream file(path, std::ios::binary);
  WARPDEX_EXPECTS(file.good(), "read_unique_id: cannot open " + path);
  const std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  WARPDEX_EXPECTS(content.size() == unique_id::size, "read_unique_id: " + path + " holds " +
                                                         std::to_string(content.size()) + " bytes, not the " +
                                                         std::to_string(unique_id::size) + " of an NCCL unique id");
  unique_id id;
  std::copy(content.begin(), content.end(), id.bytes.begin());
  return id;
}

}  // namespace warpdex::distributed
