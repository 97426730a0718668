# Turns one OpenCL C source into a C source file that holds its text as a
# NUL-terminated char array, so the library needs no files at run time.
#
#   cmake -DIN=src/opencl/x.cl -DOUT=build/.../cl_x.c -DSYMBOL=pp_ocl_src_x -P embed_cl.cmake
#
# The text is written as a byte array ({0x2f, 0x2a, ..., 0x00}) rather than
# a string literal: compilers limit the length of string literals (C11
# guarantees only 4095 characters), not of initializer lists.
if(NOT DEFINED IN OR NOT DEFINED OUT OR NOT DEFINED SYMBOL)
  message(FATAL_ERROR "embed_cl.cmake: IN, OUT and SYMBOL must be set")
endif()
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR bytes "${hexlen} / 2")
# 16 bytes (32 hex digits) per line, then each byte as 0x.., (the newlines
# do not match the byte pattern).
string(REGEX REPLACE "([0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f])"
       "\\1\n    " hex "${hex}")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
get_filename_component(name "${IN}" NAME)
set(text "/* Generated from ${name} by cmake/embed_cl.cmake (${bytes} bytes); do not edit. */\n")
string(APPEND text "extern const char ${SYMBOL}[];\n")
string(APPEND text "const char ${SYMBOL}[] = {\n    ${hex}0x00};\n")
# Write only when the text changed, so dependants are not rebuilt needlessly.
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
