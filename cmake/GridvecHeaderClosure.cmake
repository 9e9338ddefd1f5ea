# gridvec_header_closure(OUT HEADER...): the headers HEADER... include, directly
# or not, among gridvec's own ("src/...", "actors/...", <gridvec/...>), the
# given ones included, as paths relative to the source tree. The install
# copies exactly these: the public API (include/gridvec/) and what it cannot
# compile without; every other internal header stays out of the package.
function(gridvec_header_closure out)
  set(todo ${ARGN})
  set(done "")
  while(todo)
    list(POP_FRONT todo header)
    if(header IN_LIST done)
      continue()
    endif()
    list(APPEND done ${header})
    file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/${header} lines
         REGEX "^#include [\"<](src|actors|gridvec)/[^\">]+[\">]")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^#include [\"<]([^\">]+)[\">].*" "\\1" included "${line}")
      if(included MATCHES "^gridvec/")
        set(included "include/${included}")
      endif()
      if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${included})
        list(APPEND todo ${included})
      endif()
    endforeach()
  endwhile()
  set(${out} ${done} PARENT_SCOPE)
endfunction()
