# Version file of the CudaHarness package (find_package's config mode). Written by hand, as
# write_basic_package_version_file(... COMPATIBILITY SameMajorVersion) would write it; the
# version must equal the Makefile's VERSION (tests/integration/cmake_package.t checks it).
# Compatible when the requested major version equals ours and the requested version is not newer;
# version ranges (CMake 3.19+) must have both ends in our major version.

set(PACKAGE_VERSION "0.1.0")
set(_cuda_harness_major "0")

if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(PACKAGE_FIND_VERSION_RANGE)
  math(EXPR _cuda_harness_major_next "${_cuda_harness_major} + 1")
  if(NOT PACKAGE_FIND_VERSION_MIN_MAJOR STREQUAL _cuda_harness_major
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE"
         AND NOT PACKAGE_FIND_VERSION_MAX_MAJOR STREQUAL _cuda_harness_major)
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE"
         AND NOT PACKAGE_FIND_VERSION_MAX VERSION_LESS_EQUAL _cuda_harness_major_next))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  elseif((PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE"
          AND PACKAGE_VERSION VERSION_LESS_EQUAL PACKAGE_FIND_VERSION_MAX)
         OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE"
             AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MAX))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
  unset(_cuda_harness_major_next)
else()
  if(NOT PACKAGE_FIND_VERSION OR PACKAGE_FIND_VERSION_MAJOR STREQUAL _cuda_harness_major)
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
unset(_cuda_harness_major)

# ch-cc and the CUDA runtime it links are 64-bit: a 32-bit project cannot use them.
if(NOT "${CMAKE_SIZEOF_VOID_P}" STREQUAL "" AND NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")
  math(EXPR _cuda_harness_bits "${CMAKE_SIZEOF_VOID_P} * 8")
  set(PACKAGE_VERSION "${PACKAGE_VERSION} (64bit, not ${_cuda_harness_bits}bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  unset(_cuda_harness_bits)
endif()
