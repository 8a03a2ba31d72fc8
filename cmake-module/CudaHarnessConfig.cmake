# CudaHarness: the CMake package of ch-cc (installed as <prefix>/lib/cmake/CudaHarness).
#
#   find_package(CudaHarness CONFIG REQUIRED)   # CMAKE_PREFIX_PATH=<prefix> or CudaHarness_DIR
#   add_executable(app main.c kernels.cu)
#   cuda_harness_enable(app)
#
# Provides
#   CudaHarness_FOUND, CudaHarness_VERSION (from CudaHarnessConfigVersion.cmake)
#   CUDA_HARNESS_COMPILER       absolute path of <prefix>/bin/ch-cc
#   CudaHarness_INCLUDE_DIRS    <prefix>/include (harness.h)
#   CudaHarness_RUNTIME_LIBRARY <prefix>/lib/libch_runtime.a, the trusted runtime ("" if absent)
#   CudaHarness::runtime        INTERFACE IMPORTED target: what linking harness objects needs
#                               (include dir, the trusted runtime, the static CUDA runtime, the
#                               C++ standard library)
#   cuda_harness_enable(<target>)
#                               compile the target's C, CXX and CUDA sources through ch-cc as a
#                               compiler launcher (`ch-cc <real compiler> args...`) and link
#                               CudaHarness::runtime; calling it again changes nothing.
#
# The package is installed as is (no configure step): every path is computed from this file's
# location.

if(CMAKE_VERSION VERSION_LESS 3.17)
  set(CudaHarness_FOUND FALSE)
  set(CudaHarness_NOT_FOUND_MESSAGE "CudaHarness needs CMake 3.17 or newer (this is ${CMAKE_VERSION})")
  return()
endif()

# <prefix>/lib/cmake/CudaHarness -> <prefix>
get_filename_component(_cuda_harness_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT EXISTS "${_cuda_harness_prefix}/bin/ch-cc")
  # Reached through a symbolic link to the package directory: try the real location.
  get_filename_component(_cuda_harness_real "${CMAKE_CURRENT_LIST_DIR}" REALPATH)
  get_filename_component(_cuda_harness_prefix "${_cuda_harness_real}/../../.." ABSOLUTE)
  unset(_cuda_harness_real)
endif()

if(NOT EXISTS "${_cuda_harness_prefix}/bin/ch-cc" OR NOT EXISTS "${_cuda_harness_prefix}/include/harness.h")
  set(CudaHarness_FOUND FALSE)
  set(CudaHarness_NOT_FOUND_MESSAGE
      "CudaHarness: ${_cuda_harness_prefix}/bin/ch-cc or ${_cuda_harness_prefix}/include/harness.h is missing (incomplete installation?)")
  unset(_cuda_harness_prefix)
  return()
endif()

set(CUDA_HARNESS_COMPILER "${_cuda_harness_prefix}/bin/ch-cc")
# The trusted runtime that harness units hand their data to (ch/runtime.h); an installation
# without it still links (the units' references are weak: the candidates' own launchers run).
if(EXISTS "${_cuda_harness_prefix}/lib/libch_runtime.a")
  set(CudaHarness_RUNTIME_LIBRARY "${_cuda_harness_prefix}/lib/libch_runtime.a")
else()
  set(CudaHarness_RUNTIME_LIBRARY "")
endif()
set(CudaHarness_INCLUDE_DIRS "${_cuda_harness_prefix}/include")
# For cuda_harness_enable called where CUDA_HARNESS_COMPILER is not visible.
set_property(GLOBAL PROPERTY CUDA_HARNESS_COMPILER "${CUDA_HARNESS_COMPILER}")
unset(_cuda_harness_prefix)

# The static CUDA runtime: FindCUDAToolkit's CUDA::cudart_static when it finds the toolkit, else
# libcudart_static found by hand (plus rt, pthread, dl, which it needs on Linux).
if(NOT TARGET CudaHarness::runtime)
  if(NOT TARGET CUDA::cudart_static)
    find_package(CUDAToolkit QUIET)
  endif()

  add_library(CudaHarness::runtime INTERFACE IMPORTED)
  set(_cuda_harness_includes "${CudaHarness_INCLUDE_DIRS}")
  set(_cuda_harness_links "")
  if(CudaHarness_RUNTIME_LIBRARY)
    # before the CUDA runtime, which it needs; the units' references are weak and a weak
    # reference alone takes nothing from an archive, hence the undefined symbol
    list(APPEND _cuda_harness_links "${CudaHarness_RUNTIME_LIBRARY}")
    set_property(TARGET CudaHarness::runtime PROPERTY INTERFACE_LINK_OPTIONS "LINKER:--undefined=ch_rt_call_v1")
  endif()
  if(TARGET CUDA::cudart_static)
    list(APPEND _cuda_harness_links CUDA::cudart_static)
  else()
    set(_cuda_harness_hints "")
    foreach(_cuda_harness_root IN ITEMS "${CUDAToolkit_ROOT}" "$ENV{CUDAToolkit_ROOT}" "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}")
      if(_cuda_harness_root)
        list(APPEND _cuda_harness_hints "${_cuda_harness_root}")
      endif()
    endforeach()
    if(CMAKE_CUDA_COMPILER)
      get_filename_component(_cuda_harness_root "${CMAKE_CUDA_COMPILER}" DIRECTORY)
      list(APPEND _cuda_harness_hints "${_cuda_harness_root}/..")
    endif()
    find_program(_cuda_harness_nvcc nvcc PATHS /usr/local/cuda/bin)
    if(_cuda_harness_nvcc)
      get_filename_component(_cuda_harness_nvcc "${_cuda_harness_nvcc}" REALPATH)
      get_filename_component(_cuda_harness_root "${_cuda_harness_nvcc}" DIRECTORY)
      list(APPEND _cuda_harness_hints "${_cuda_harness_root}/..")
    endif()
    unset(_cuda_harness_nvcc CACHE)
    unset(_cuda_harness_nvcc)
    list(APPEND _cuda_harness_hints /usr/local/cuda)

    find_library(CudaHarness_CUDART_STATIC_LIBRARY NAMES cudart_static
                 HINTS ${_cuda_harness_hints}
                 PATH_SUFFIXES lib64 lib "targets/${CMAKE_SYSTEM_PROCESSOR}-linux/lib")
    find_path(CudaHarness_CUDA_INCLUDE_DIR cuda_runtime_api.h
              HINTS ${_cuda_harness_hints}
              PATH_SUFFIXES include "targets/${CMAKE_SYSTEM_PROCESSOR}-linux/include")
    mark_as_advanced(CudaHarness_CUDART_STATIC_LIBRARY CudaHarness_CUDA_INCLUDE_DIR)
    if(CudaHarness_CUDART_STATIC_LIBRARY)
      list(APPEND _cuda_harness_links "${CudaHarness_CUDART_STATIC_LIBRARY}")
      get_filename_component(_cuda_harness_libdir "${CudaHarness_CUDART_STATIC_LIBRARY}" DIRECTORY)
      set_property(TARGET CudaHarness::runtime PROPERTY INTERFACE_LINK_DIRECTORIES "${_cuda_harness_libdir}")
      unset(_cuda_harness_libdir)
    else()
      list(APPEND _cuda_harness_links cudart_static)
    endif()
    if(CudaHarness_CUDA_INCLUDE_DIR)
      list(APPEND _cuda_harness_includes "${CudaHarness_CUDA_INCLUDE_DIR}")
    endif()
    if(UNIX AND NOT APPLE)
      list(APPEND _cuda_harness_links rt pthread dl)
    endif()
    unset(_cuda_harness_root)
    unset(_cuda_harness_hints)
  endif()
  # Harness objects contain nvcc-compiled (C++) host code; a C link needs libstdc++ too.
  list(APPEND _cuda_harness_links stdc++)

  set_target_properties(CudaHarness::runtime PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_cuda_harness_includes}"
    INTERFACE_LINK_LIBRARIES "${_cuda_harness_links}")
  unset(_cuda_harness_includes)
  unset(_cuda_harness_links)
endif()

# cuda_harness_enable(<target>)
function(cuda_harness_enable target)
  if(NOT ARGC EQUAL 1)
    message(FATAL_ERROR "cuda_harness_enable: expected exactly one argument, a target name (got: ${ARGV})")
  endif()
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "cuda_harness_enable: no target named '${target}' (call it after add_executable/add_library)")
  endif()
  get_target_property(_real "${target}" ALIASED_TARGET)
  if(_real)
    set(target "${_real}")
  endif()
  get_target_property(_imported "${target}" IMPORTED)
  if(_imported)
    message(FATAL_ERROR "cuda_harness_enable: '${target}' is an imported target; it has no sources to compile")
  endif()
  get_target_property(_type "${target}" TYPE)
  if(NOT _type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    message(FATAL_ERROR "cuda_harness_enable: '${target}' is a ${_type} target; it has no sources to compile")
  endif()
  get_property(_done TARGET "${target}" PROPERTY CUDA_HARNESS_ENABLED)
  if(_done)
    return()
  endif()

  set(_ch_cc "${CUDA_HARNESS_COMPILER}")
  if(NOT _ch_cc)
    get_property(_ch_cc GLOBAL PROPERTY CUDA_HARNESS_COMPILER)
  endif()

  # ch-cc becomes the innermost launcher: a launcher already set (ccache, say) stays in front.
  foreach(_lang IN ITEMS C CXX CUDA)
    get_property(_launcher TARGET "${target}" PROPERTY ${_lang}_COMPILER_LAUNCHER)
    set(_has_ch_cc FALSE)
    # CUDACXX=ch-nvcc / CC=ch-cc: the compiler is ch-cc already, no launcher needed.
    foreach(_item IN LISTS CMAKE_${_lang}_COMPILER _launcher)
      get_filename_component(_name "${_item}" NAME)
      if(_name STREQUAL "ch-cc" OR _name STREQUAL "ch-nvcc")
        set(_has_ch_cc TRUE)
      endif()
    endforeach()
    if(NOT _has_ch_cc)
      list(APPEND _launcher "${_ch_cc}")
      set_property(TARGET "${target}" PROPERTY ${_lang}_COMPILER_LAUNCHER "${_launcher}")
    endif()
  endforeach()

  # As target_link_libraries(<target> PRIVATE CudaHarness::runtime), without committing the
  # target to the keyword or the plain signature of target_link_libraries.
  set_property(TARGET "${target}" APPEND PROPERTY LINK_LIBRARIES CudaHarness::runtime)
  if(_type STREQUAL "STATIC_LIBRARY" OR _type STREQUAL "OBJECT_LIBRARY")
    set_property(TARGET "${target}" APPEND PROPERTY INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:CudaHarness::runtime>")
  endif()
  set_property(TARGET "${target}" PROPERTY CUDA_HARNESS_ENABLED TRUE)
endfunction()

set(CudaHarness_FOUND TRUE)
