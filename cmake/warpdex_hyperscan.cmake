# Hyperscan (Debian's libhyperscan-dev), the host backend's fixed-string matcher: `warpdex grep` on the host
# backend and the host's `count_matches` / `find_matches`. Optional: without it (or with
# -DWARPDEX_WITH_HYPERSCAN=OFF) the built-in matcher serves them, with the same results. Linked from its
# static archive when there is one, so that the programs run on machines without the shared library (the
# GPU machine runs what is built here); so a build of the Python module (WARPDEX_BUILD_PYTHON) leaves it
# out, as the archive cannot be linked into a shared object. Sets WARPDEX_HAS_HYPERSCAN, WARPDEX_HYPERSCAN_INCLUDE_DIR and
# WARPDEX_HYPERSCAN_LIBRARY.
set(WARPDEX_HAS_HYPERSCAN OFF)
if(WARPDEX_WITH_HYPERSCAN)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(WARPDEX_HYPERSCAN_PC QUIET libhs)
  endif()
  find_path(WARPDEX_HYPERSCAN_INCLUDE_DIR hs.h HINTS ${WARPDEX_HYPERSCAN_PC_INCLUDE_DIRS} PATH_SUFFIXES hs)
  find_library(WARPDEX_HYPERSCAN_LIBRARY NAMES libhs.a hs HINTS ${WARPDEX_HYPERSCAN_PC_LIBRARY_DIRS})
  if(WARPDEX_HYPERSCAN_INCLUDE_DIR AND WARPDEX_HYPERSCAN_LIBRARY AND WARPDEX_BUILD_PYTHON AND
     WARPDEX_HYPERSCAN_LIBRARY MATCHES "\\.a$")
    # Debian's archive holds code that is not position-independent: the Python module (a shared object)
    # cannot link it, so a build with the module leaves Hyperscan out (its results are the same).
    message(STATUS "warpdex: Hyperscan's archive cannot go into the Python module (not position-independent "
                   "code); this build matches fixed strings on the host with the built-in matcher")
  elseif(WARPDEX_HYPERSCAN_INCLUDE_DIR AND WARPDEX_HYPERSCAN_LIBRARY)
    set(WARPDEX_HAS_HYPERSCAN ON)
  else()
    message(STATUS "warpdex: Hyperscan not found (Debian: libhyperscan-dev); the host backend matches fixed "
                   "strings with its built-in matcher")
  endif()
endif()
