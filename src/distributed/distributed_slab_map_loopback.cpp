// distributed_slab_map over the in-process loopback group: on the host backend always, and on the cuda
// backend (every rank on the current GPU) in CUDA builds.

#include <warpdex/distributed/detail/distributed_slab_map_impl.hpp>
#include <warpdex/distributed/loopback_group.hpp>

namespace warpdex::distributed {
template class distributed_slab_map<loopback_group<host>>;
#if WARPDEX_HAS_CUDA
template class distributed_slab_map<loopback_group<cuda>>;
#endif
}  // namespace warpdex::distributed
