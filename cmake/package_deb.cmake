# CPack: `cpack -G DEB` (run in the build folder; tools/package_check.sh) writes
# ptxgen_<version>_<arch>.deb with the command, the headers, the static libraries and
# the CMake package under /usr.
set(CPACK_PACKAGE_NAME ptxgen)
set(CPACK_PACKAGE_VENDOR "ptxgen")
set(CPACK_PACKAGE_CONTACT "ptxgen developers <ptxgen@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Raw PTX emitter and assembler driver for NVIDIA cp.async (command, C++ libraries, CMake package)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # ptxgen_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Linking ptxgen::driver from the installed package needs toml++'s CMake package.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libtomlplusplus-dev, cmake, g++")
find_program(PTXGEN_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PTXGEN_DPKG_SHLIBDEPS)
  # Depends from the shared libraries the ptxgen binary really links.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
elseif(PTXGEN_STATIC_RUNTIME)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6") # libstdc++, Boost and toml++ are linked in
else()
  # Without dpkg-shlibdeps (package dpkg-dev): Debian 12's packages of the shared
  # libraries a default build links (tools/package_check.sh checks them against ldd).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6, libstdc++6, libgcc-s1, libboost-program-options1.74.0, libtomlplusplus3")
endif()
include(CPack)
