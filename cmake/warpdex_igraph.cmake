# igraph, the maximal-clique oracle of the tests and the baseline of the benchmarks (Debian's
# libigraph-dev). Linked from its static archive: a program then carries only the igraph code it calls,
# and loads none of the shared libraries igraph's other parts need (BLAS, LAPACK, GLPK, libxml2, ICU),
# so the GPU machine, which has none of them, runs it as it is.
# Defines `warpdex_igraph` (an interface target) when igraph is found, else sets WARPDEX_HAS_IGRAPH off.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(WARPDEX_IGRAPH_PC QUIET igraph)
endif()
find_library(WARPDEX_IGRAPH_ARCHIVE NAMES libigraph.a HINTS ${WARPDEX_IGRAPH_PC_LIBRARY_DIRS})
if(WARPDEX_IGRAPH_PC_FOUND AND WARPDEX_IGRAPH_ARCHIVE)
  set(WARPDEX_HAS_IGRAPH ON)
  add_library(warpdex_igraph INTERFACE)
  target_include_directories(warpdex_igraph SYSTEM INTERFACE ${WARPDEX_IGRAPH_PC_INCLUDE_DIRS})
  target_link_libraries(warpdex_igraph INTERFACE ${WARPDEX_IGRAPH_ARCHIVE} OpenMP::OpenMP_CXX m)
else()
  set(WARPDEX_HAS_IGRAPH OFF)
endif()
