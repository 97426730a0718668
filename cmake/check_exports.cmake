# Checks that a shared library exports exactly the functions its public
# header declares, and nothing else (the CTest test check_exports):
#
#   cmake -DLIB=libparprim.so -DHEADER=include/parprim.h -DNM=nm -DCC=cc \
#         [-DARCHIVE=libparprim.a -DREADELF=readelf [-DARCHIVE_PREFIX=pp_]] \
#         [-DPREFIX=pp_ -DEXPECT=pp_create "-DINCLUDES=dir;dir"] -P cmake/check_exports.cmake
#
# The declared functions: each header of HEADER (a list) goes through the C
# preprocessor (INCLUDES: its -I directories; comments, macros and
# conditional sections are gone), and every identifier that starts with
# PREFIX (default pp_) and is followed by '(' is a declared function (the
# headers declare no such function pointers or variables). A header that
# includes another library's (parprim_mpi.h includes parprim.h) names its
# own functions by a longer PREFIX (pp_dist_). EXPECT (default pp_create):
# a function that must be found, else the parse is broken.
# The exported symbols: `nm -D --defined-only`, every defined symbol of the
# dynamic symbol table, whatever its kind, less the few the linker itself
# may define there. Each must be a declared function of function type, and
# each declared function must be there.
# With ARCHIVE and READELF, the static library too: in its objects, the
# defined global symbols of default visibility (what a shared library or
# program linking them would export) must be exactly the declared functions;
# everything else hidden. With ARCHIVE_PREFIX as well: every defined global
# symbol of its objects, whatever its visibility (hidden ones too: they are
# what a program linking the static library shares its namespace with),
# starts with ARCHIVE_PREFIX (but a sanitizer's own symbols, __odr_asan.*,
# __asan_*, __ubsan_*, __sancov_*).
cmake_minimum_required(VERSION 3.18) # IN_LIST, list(JOIN)
foreach(var LIB HEADER NM CC)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_exports: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED PREFIX OR "${PREFIX}" STREQUAL "")
  set(PREFIX pp_)
endif()
if(NOT DEFINED EXPECT OR "${EXPECT}" STREQUAL "")
  set(EXPECT pp_create)
endif()
set(include_flags "")
foreach(dir IN LISTS INCLUDES)
  list(APPEND include_flags "-I${dir}")
endforeach()

# Runs a command and sets var to the list of its output's lines; fails
# naming the command if it fails.
function(output_lines var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(JOIN " " cmd ${ARGN})
    message(FATAL_ERROR "check_exports: '${cmd}' failed (${rc}): ${err}")
  endif()
  string(REPLACE "\n" ";" out "${out}")
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

# ---- the header's functions -------------------------------------------------
set(declared "")
foreach(header IN LISTS HEADER)
  output_lines(pre "${CC}" -E -P -x c ${include_flags} "${header}")
  # A character before the name that cannot belong to an identifier (or the
  # start), so that xpp_f( is not taken for pp_f(.
  string(REGEX MATCHALL "(^|[^A-Za-z0-9_])${PREFIX}[A-Za-z0-9_]*[ \t\r\n]*\\(" hits "${pre}")
  foreach(h IN LISTS hits)
    string(REGEX REPLACE "^[^A-Za-z0-9_]" "" name "${h}")
    string(REGEX REPLACE "[ \t\r\n]*\\($" "" name "${name}")
    list(APPEND declared "${name}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES declared)
list(SORT declared)
list(LENGTH declared ndeclared)
if(ndeclared LESS 10 OR NOT "${EXPECT}" IN_LIST declared)
  message(FATAL_ERROR "check_exports: found only ${ndeclared} functions in ${HEADER} "
                      "(${declared}): the parse is broken")
endif()

# Sorts one symbol of the library: into exported if it is a declared function
# (is_function: its kind is a function's), else into unexpected, with kind.
macro(take name is_function kind)
  if(${is_function} AND "${name}" IN_LIST declared)
    list(APPEND exported "${name}")
  else()
    list(APPEND unexpected "${name} (${kind})")
  endif()
endmacro()

# ---- the library's symbols ----------------------------------------------------
output_lines(lines "${NM}" -D --defined-only "${LIB}")
# Symbols older linkers put in the dynamic table of every shared library.
set(linker_symbols _init _fini _edata _end __bss_start _DYNAMIC _GLOBAL_OFFSET_TABLE_)
set(exported "")
set(unexpected "")
foreach(line IN LISTS lines)
  # "ADDRESS TYPE NAME", NAME possibly with a version ("pp_f@@V1"); the
  # address may be missing for absolute symbols.
  if(NOT line MATCHES "^([0-9A-Fa-f]+ +)?([A-Za-z]) +([^ @]+)")
    continue()
  endif()
  set(type "${CMAKE_MATCH_2}")
  set(name "${CMAKE_MATCH_3}")
  if(name IN_LIST linker_symbols)
    continue()
  endif()
  string(REGEX MATCH "^[TWi]$" is_function "${type}")
  take("${name}" "is_function" "${type}")
endforeach()

# Fails naming what differs between the declared functions and found (of
# what), with the symbols in unexpected that should not be there.
function(compare what found unexpected)
  set(missing ${declared})
  if(found)
    list(REMOVE_ITEM missing ${found})
  endif()
  if(unexpected OR missing)
    list(JOIN unexpected "\n    " u)
    list(JOIN missing "\n    " m)
    message(FATAL_ERROR "check_exports: ${what} does not export exactly the functions of ${HEADER}\n"
                        "  exported but not a function of the header (give it hidden visibility):\n    ${u}\n"
                        "  declared in the header but not exported (mark it exported: PP_API, PP_DIST_API):\n    ${m}")
  endif()
  list(REMOVE_DUPLICATES found)
  list(LENGTH found nfound)
  message(STATUS "check_exports: ${what} exports exactly the ${nfound} functions of ${HEADER}")
endfunction()
compare("${LIB}" "${exported}" "${unexpected}")

# ---- the static library's objects ----------------------------------------------
if(DEFINED ARCHIVE AND NOT "${ARCHIVE}" STREQUAL "")
  if(NOT DEFINED READELF OR "${READELF}" STREQUAL "")
    message(FATAL_ERROR "check_exports: -DARCHIVE needs -DREADELF=...")
  endif()
  output_lines(lines "${READELF}" -sW "${ARCHIVE}")
  set(exported "")
  set(unexpected "")
  set(unprefixed "")
  foreach(line IN LISTS lines)
    # "Num: Value Size Type Bind Vis Ndx Name"
    if(NOT line MATCHES "^ *[0-9]+: +[0-9a-fA-F]+ +[0-9a-fx]+ +([A-Z_]+) +([A-Z_]+) +([A-Z_]+) +([A-Z0-9_]+) +(.+)$")
      continue()
    endif()
    set(type "${CMAKE_MATCH_1}")
    set(bind "${CMAKE_MATCH_2}")
    set(vis "${CMAKE_MATCH_3}")
    set(ndx "${CMAKE_MATCH_4}")
    set(name "${CMAKE_MATCH_5}")
    if(ndx STREQUAL "UND" OR NOT bind MATCHES "^(GLOBAL|WEAK|UNIQUE)$")
      continue()
    endif()
    if(DEFINED ARCHIVE_PREFIX AND NOT "${ARCHIVE_PREFIX}" STREQUAL "")
      string(FIND "${name}" "${ARCHIVE_PREFIX}" at)
      # symbols a sanitizer's instrumentation adds (ASan's one-definition
      # markers, __odr_asan.<name>) are the compiler's, not the sources'
      if(NOT at EQUAL 0 AND NOT name MATCHES "^__(odr_asan|asan|ubsan|sancov)")
        list(APPEND unprefixed "${name} (${type} ${bind} ${vis})")
      endif()
    endif()
    if(NOT vis STREQUAL "DEFAULT")
      continue()
    endif()
    string(COMPARE EQUAL "${type}" "FUNC" is_function)
    take("${name}" "is_function" "${type} ${bind}")
  endforeach()
  compare("${ARCHIVE} (its objects)" "${exported}" "${unexpected}")
  if(unprefixed)
    list(REMOVE_DUPLICATES unprefixed)
    list(JOIN unprefixed "\n    " u)
    message(FATAL_ERROR "check_exports: ${ARCHIVE} defines global symbols without the prefix ${ARCHIVE_PREFIX} "
                        "(name them ${ARCHIVE_PREFIX}..., or make them static):\n    ${u}")
  endif()
  if(DEFINED ARCHIVE_PREFIX AND NOT "${ARCHIVE_PREFIX}" STREQUAL "")
    message(STATUS "check_exports: every global symbol of ${ARCHIVE} starts with ${ARCHIVE_PREFIX}")
  endif()
endif()
