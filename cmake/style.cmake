# Two habits the tests hold the sources to (included from the top CMakeLists.txt):
#
#   style/analyzer      clang's static analyzer over src/*.c, with this build's flags
#                       (tools/analyze.sh; known findings in tools/analyzer-known.txt)
#   style/clang-format  src/, tests/ and bench/ against .clang-format (tools/format-check.sh)
#
# Both skip (exit 77) where clang-tidy or clang-format is not installed.

add_test(NAME style/analyzer COMMAND sh ${CMAKE_SOURCE_DIR}/tools/analyze.sh ${CMAKE_BINARY_DIR})
# the longest test: a high COST starts it first, beside the others
set_tests_properties(style/analyzer PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 COST 1000)

# On: the tree follows .clang-format; -DGPUSCOPE_FORMAT_CHECK=OFF leaves the test out.
option(GPUSCOPE_FORMAT_CHECK "run the style/clang-format test (the tree follows .clang-format)" ON)
add_test(NAME style/clang-format COMMAND sh ${CMAKE_SOURCE_DIR}/tools/format-check.sh)
set_tests_properties(style/clang-format PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
if(NOT GPUSCOPE_FORMAT_CHECK)
  set_tests_properties(style/clang-format PROPERTIES DISABLED TRUE)
endif()
