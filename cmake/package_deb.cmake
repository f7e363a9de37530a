# CPack: `cpack -G DEB` (run in the build folder; tools/package_check.sh) writes
# ptxgen_<version>_<arch>.deb with the command, the headers, the static libraries, the
# CMake package and, when it was built, the Python module under /usr.
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
# The Python module (python/) imports numpy and is built for one interpreter's ABI
# (cpython-3XY): Debian's python3 of that minor version, whose dist-packages it lies in.
set(PTXGEN_DEB_PYTHON_DEPENDS "")
if(TARGET ptxgen_python)
  set(PTXGEN_DEB_PYTHON_DEPENDS
      ", python3 (>= ${PTXGEN_PYTHON_VERSION}), python3 (<< ${PTXGEN_PYTHON_VERSION_NEXT}), python3-numpy")
endif()
find_program(PTXGEN_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PTXGEN_DPKG_SHLIBDEPS)
  # Depends from the shared libraries the ptxgen binary and the Python module really link.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # CPack adds these to what dpkg-shlibdeps finds (numpy is loaded by Python, not linked).
  string(REGEX REPLACE "^, " "" CPACK_DEBIAN_PACKAGE_DEPENDS "${PTXGEN_DEB_PYTHON_DEPENDS}")
elseif(PTXGEN_STATIC_RUNTIME)
  # libstdc++, Boost and toml++ are linked into the command; the Python module, a shared
  # object loaded by python3, uses the shared C++ runtime.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6")
  if(TARGET ptxgen_python)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libstdc++6, libgcc-s1${PTXGEN_DEB_PYTHON_DEPENDS}")
  endif()
else()
  # Without dpkg-shlibdeps (package dpkg-dev): Debian 12's packages of the shared
  # libraries a default build links (tools/package_check.sh checks them against ldd).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6, libstdc++6, libgcc-s1, libboost-program-options1.74.0, libtomlplusplus3${PTXGEN_DEB_PYTHON_DEPENDS}")
endif()
include(CPack)
