# The validation engine, built into the icsim command (sim/CMakeLists.txt); the tests compile
# the parts they exercise (tests/CMakeLists.txt).
set(VALIDATE_ENGINE_DIR ${CMAKE_SOURCE_DIR}/validate/engine)
set(VALIDATE_CASE_SOURCES ${VALIDATE_ENGINE_DIR}/case.c ${VALIDATE_ENGINE_DIR}/published.c)
set(VALIDATE_ENGINE_SOURCES ${VALIDATE_CASE_SOURCES} ${VALIDATE_ENGINE_DIR}/extract.c ${VALIDATE_ENGINE_DIR}/compare.c
    ${VALIDATE_ENGINE_DIR}/report.c ${VALIDATE_ENGINE_DIR}/split.c ${VALIDATE_ENGINE_DIR}/uncertainty.c ${VALIDATE_ENGINE_DIR}/cmd.c)
