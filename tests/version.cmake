# `ptxgen --version` names the commit it was built from (cmake/commit.cmake).
add_test(NAME version.names_commit
         COMMAND ${CMAKE_COMMAND} -DPTXGEN=$<TARGET_FILE:ptxgen> -DSRC=${PROJECT_SOURCE_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/version/check.cmake)
