include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/warpdex DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/warpdex/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/warpdex)
install(TARGETS warpdex EXPORT warpdexTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET warpdex_nccl)
  # The NCCL communicator (warpdex::nccl); its users find NCCL with the same module, hinted at the NCCL found here.
  install(TARGETS warpdex_nccl EXPORT warpdexTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/FindNCCL.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpdex)
  get_filename_component(WARPDEX_NCCL_ROOT "${NCCL_INCLUDE_DIR}/.." ABSOLUTE)
endif()
if(WARPDEX_HAS_HYPERSCAN AND WARPDEX_HYPERSCAN_LIBRARY MATCHES "\\.a$")
  # Hyperscan's archive beside the library (src/search/CMakeLists.txt links the installed library to it).
  install(FILES ${WARPDEX_HYPERSCAN_LIBRARY} DESTINATION ${CMAKE_INSTALL_LIBDIR})
elseif(WARPDEX_HAS_HYPERSCAN)
  # The shared library under the name the loader asks for (src/search/CMakeLists.txt links it there).
  install(FILES ${WARPDEX_HYPERSCAN_SHARED_FILE} DESTINATION ${CMAKE_INSTALL_LIBDIR} RENAME ${WARPDEX_HYPERSCAN_SONAME})
endif()
if(TARGET warpdex_cli)
  install(TARGETS warpdex_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT warpdexTargets NAMESPACE warpdex:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpdex)

configure_package_config_file(cmake/warpdexConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/warpdexConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpdex)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/warpdexConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/warpdexConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/warpdexConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpdex)
