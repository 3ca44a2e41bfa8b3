// The distributed multisplit and sort over NCCL's communicator.

#include <warpdex/distributed/communicator.hpp>
#include <warpdex/distributed/detail/distributed_split_impl.hpp>
#include <warpdex/distributed/detail/distributed_split_instances.hpp>

namespace warpdex::distributed {
WARPDEX_DISTRIBUTED_SPLIT_INSTANCES(communicator)
}  // namespace warpdex::distributed
