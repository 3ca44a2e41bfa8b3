// distributed_slab_map over NCCL's communicator.

#include <warpdex/distributed/communicator.hpp>
#include <warpdex/distributed/detail/distributed_slab_map_impl.hpp>

namespace warpdex::distributed {
template class distributed_slab_map<communicator>;
}  // namespace warpdex::distributed
