# What `cmake --install` adds besides the targets (installed where they are defined):
# the CMake package another project finds with find_package(stepdoctor), and CPack's Debian
# package of the command (`cpack -G DEB` in the build folder).
include(CMakePackageConfigHelpers)

set(STEPDOCTOR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/stepdoctor)
install(EXPORT stepdoctorTargets NAMESPACE stepdoctor:: DESTINATION ${STEPDOCTOR_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/stepdoctorConfig.cmake.in
  ${CMAKE_BINARY_DIR}/stepdoctorConfig.cmake INSTALL_DESTINATION ${STEPDOCTOR_CMAKE_DIR})
# 0.x: a minor version may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/stepdoctorConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/stepdoctorConfig.cmake ${CMAKE_BINARY_DIR}/stepdoctorConfigVersion.cmake
  DESTINATION ${STEPDOCTOR_CMAKE_DIR} COMPONENT dev)

# The .deb holds the command (the runtime component: binary, man page, bash completion); the
# library and headers are for building against, from `cmake --install`.
set(CPACK_PACKAGE_NAME stepdoctor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "says what bounds a training step and what to change")
set(CPACK_PACKAGE_DESCRIPTION
  "Reads PyTorch/Kineto and TensorFlow traces, TensorFlow profiles, TensorBoard logdirs and GPU logs, and says what bounds the training step, with evidence, the gain if fixed and the code to change.")
set(CPACK_PACKAGE_CONTACT "stepdoctor developers")
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};stepdoctor;runtime;/")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # stepdoctor_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# Depends: from the libraries the binary links (dpkg-shlibdeps, from dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
