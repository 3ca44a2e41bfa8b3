# Hyperscan (Debian's libhyperscan-dev), the host backend's fixed-string matcher: `warpdex grep` on the host
# backend and the host's `count_matches` / `find_matches`. Optional: without it (or with
# -DWARPDEX_WITH_HYPERSCAN=OFF) the built-in matcher serves them, with the same results. Programs link its
# static archive when there is one, so that they run on machines without the shared library (the GPU machine
# runs what is built here). The Python module is a shared object, and Debian's archive is not
# position-independent code, so a build with the module (WARPDEX_BUILD_PYTHON) links the shared library
# (libhs.so.5: Debian's libhs5, which libhyperscan-dev brings; a repaired wheel carries it). Sets
# WARPDEX_HAS_HYPERSCAN, WARPDEX_HYPERSCAN_INCLUDE_DIR and WARPDEX_HYPERSCAN_LIBRARY, and for the shared library
# WARPDEX_HYPERSCAN_SONAME (the name the loader looks for, under which an install carries it).
# A library that a shared object will link later (tools/gpu.sh python-build: the Python module built against the
# installed library) needs the shared library too.
option(WARPDEX_HYPERSCAN_SHARED "Link Hyperscan's shared library, not its archive" OFF)
set(WARPDEX_HAS_HYPERSCAN OFF)
if(WARPDEX_WITH_HYPERSCAN)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(WARPDEX_HYPERSCAN_PC QUIET libhs)
  endif()
  find_path(WARPDEX_HYPERSCAN_INCLUDE_DIR hs.h HINTS ${WARPDEX_HYPERSCAN_PC_INCLUDE_DIRS} PATH_SUFFIXES hs)
  if(WARPDEX_BUILD_PYTHON OR WARPDEX_HYPERSCAN_SHARED)
    find_library(WARPDEX_HYPERSCAN_SHARED_LIBRARY NAMES libhs.so hs HINTS ${WARPDEX_HYPERSCAN_PC_LIBRARY_DIRS})
    if(WARPDEX_HYPERSCAN_SHARED_LIBRARY MATCHES "\\.a$")
      message(STATUS "warpdex: only Hyperscan's archive was found, which cannot go into the Python module (not "
                     "position-independent code); this build matches fixed strings on the host with the built-in matcher")
      unset(WARPDEX_HYPERSCAN_LIBRARY)
    elseif(WARPDEX_HYPERSCAN_SHARED_LIBRARY)
      set(WARPDEX_HYPERSCAN_LIBRARY ${WARPDEX_HYPERSCAN_SHARED_LIBRARY})
      # libhs.so -> libhs.so.5 -> libhs.so.5.4.x: the loader asks for the name up to the major version.
      get_filename_component(WARPDEX_HYPERSCAN_SHARED_FILE ${WARPDEX_HYPERSCAN_SHARED_LIBRARY} REALPATH)
      get_filename_component(WARPDEX_HYPERSCAN_SONAME ${WARPDEX_HYPERSCAN_SHARED_FILE} NAME)
      string(REGEX REPLACE "^(.*\\.so\\.[0-9]+).*$" "\\1" WARPDEX_HYPERSCAN_SONAME ${WARPDEX_HYPERSCAN_SONAME})
    endif()
  else()
    find_library(WARPDEX_HYPERSCAN_LIBRARY NAMES libhs.a hs HINTS ${WARPDEX_HYPERSCAN_PC_LIBRARY_DIRS})
  endif()
  if(WARPDEX_HYPERSCAN_INCLUDE_DIR AND WARPDEX_HYPERSCAN_LIBRARY)
    set(WARPDEX_HAS_HYPERSCAN ON)
  else()
    message(STATUS "warpdex: Hyperscan not found (Debian: libhyperscan-dev); the host backend matches fixed "
                   "strings with its built-in matcher")
  endif()
endif()
