# `cmake --install`: libatbx.so, the public headers, the atbx command-line tool, a CMake package
# (find_package(atbx) -> atbx::atbx) and a pkg-config file (atbx.pc). The Python extension installs only as
# the `python` component (scikit-build-core's wheel), never into a C++ prefix.
include(CMakePackageConfigHelpers)

set(ATBX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/atbx)

install(TARGETS atbx_shared EXPORT atbxTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/atbx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/atbx/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/atbx)
install(TARGETS atbx_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT atbxTargets NAMESPACE atbx:: DESTINATION ${ATBX_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/atbxConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/atbxConfig.cmake INSTALL_DESTINATION ${ATBX_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/atbxConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/atbxConfig.cmake ${PROJECT_BINARY_DIR}/atbxConfigVersion.cmake
        DESTINATION ${ATBX_CMAKE_DIR})

# Relocatable: the prefix is found from the .pc file's own place, so `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH ATBX_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/atbx.pc.in ${PROJECT_BINARY_DIR}/atbx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/atbx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
