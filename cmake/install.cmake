# install(): headers under include/ptxgen/ (so `#include "emitter/..."` keeps working),
# the static libraries, the ptxgen command and a CMake package: find_package(ptxgen CONFIG)
# gives ptxgen::emitter and, when the driver was built, ptxgen::driver.
include(CMakePackageConfigHelpers)

set(PTXGEN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ptxgen)
set(PTXGEN_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/ptxgen)

# `cmake --install --strip` and CPack's CPACK_STRIP_FILES strip executables and shared
# libraries but not static ones, whose debug sections are most of a RelWithDebInfo build's
# bytes (the driver's 139 MB); this strips those sections, keeping the symbols a link needs.
function(ptxgen_install_strip_archive target)
  install(CODE "if(CMAKE_INSTALL_DO_STRIP)
  execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${target}>\"
    COMMAND_ERROR_IS_FATAL ANY)
endif()" COMPONENT ptxgen)
endfunction()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/emitter DESTINATION ${PTXGEN_INSTALL_INCLUDEDIR}
        COMPONENT ptxgen FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def")
install(TARGETS ptxgen_emitter EXPORT ptxgenEmitterTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ptxgen)
ptxgen_install_strip_archive(ptxgen_emitter)
install(EXPORT ptxgenEmitterTargets NAMESPACE ptxgen:: DESTINATION ${PTXGEN_INSTALL_CMAKEDIR}
        COMPONENT ptxgen)

if(PTXGEN_BUILD_DRIVER)
  # The command-line front end's headers (driver/cli) are not part of the library.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/driver DESTINATION ${PTXGEN_INSTALL_INCLUDEDIR}
          COMPONENT ptxgen FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def" PATTERN "cli" EXCLUDE)
  install(TARGETS ptxgen_driver EXPORT ptxgenDriverTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ptxgen)
  ptxgen_install_strip_archive(ptxgen_driver)
  install(EXPORT ptxgenDriverTargets NAMESPACE ptxgen:: DESTINATION ${PTXGEN_INSTALL_CMAKEDIR}
          COMPONENT ptxgen)
  if(TARGET ptxgen)
    install(TARGETS ptxgen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ptxgen)
  endif()
else()
  set(PTXGEN_DRIVER_LINKS_TOML OFF)
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ptxgenConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ptxgenConfig.cmake
                              INSTALL_DESTINATION ${PTXGEN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ptxgenConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ptxgenConfig.cmake ${PROJECT_BINARY_DIR}/ptxgenConfigVersion.cmake
        DESTINATION ${PTXGEN_INSTALL_CMAKEDIR} COMPONENT ptxgen)
