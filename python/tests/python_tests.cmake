# The Python package's unittest files (python/tests/test_*.py), one ctest test per file, run
# against this build's CLI. Included from tests/CMakeLists.txt.
#
# Debian's interpreter first: python3-torch, python3-venv and python3-setuptools are installed
# for it, whatever other python3 comes first on PATH. A file whose tests skip (no torch) is
# reported as skipped, with unittest's reason in its output.
find_program(STEPDOCTOR_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT STEPDOCTOR_PYTHON)
  find_program(STEPDOCTOR_PYTHON NAMES python3)
endif()
if(NOT STEPDOCTOR_PYTHON)
  message(STATUS "python3 not found: the Python package's tests are not registered")
  return()
endif()

file(GLOB STEPDOCTOR_PYTHON_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
foreach(test_file ${STEPDOCTOR_PYTHON_TESTS})
  get_filename_component(module ${test_file} NAME_WE)
  add_test(NAME Python.${module}
    COMMAND ${STEPDOCTOR_PYTHON} -m unittest -v ${module}
    WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  set_tests_properties(Python.${module} PROPERTIES
    ENVIRONMENT "STEPDOCTOR_BIN=$<TARGET_FILE:stepdoctor_cli>;PYTHONDONTWRITEBYTECODE=1"
    SKIP_REGULAR_EXPRESSION "OK \\(skipped="
    TIMEOUT 300)
endforeach()
