# Finds CAF 0.17 as Debian's libcaf-dev ships it (headers and libraries, no
# CMake config) and wraps it in imported targets CAF::core, CAF::io and
# CAF::openssl (TLS between nodes; it needs OpenSSL itself).
find_path(CAF017_INCLUDE_DIR caf/all.hpp)
find_library(CAF017_CORE_LIBRARY caf_core)
find_library(CAF017_IO_LIBRARY caf_io)
find_library(CAF017_OPENSSL_LIBRARY caf_openssl)
find_package(OpenSSL REQUIRED)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF017 REQUIRED_VARS
  CAF017_INCLUDE_DIR CAF017_CORE_LIBRARY CAF017_IO_LIBRARY CAF017_OPENSSL_LIBRARY)
if(CAF017_FOUND AND NOT TARGET CAF::core)
  add_library(CAF::core UNKNOWN IMPORTED)
  set_target_properties(CAF::core PROPERTIES
    IMPORTED_LOCATION ${CAF017_CORE_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${CAF017_INCLUDE_DIR})
  add_library(CAF::io UNKNOWN IMPORTED)
  set_target_properties(CAF::io PROPERTIES
    IMPORTED_LOCATION ${CAF017_IO_LIBRARY}
    INTERFACE_LINK_LIBRARIES CAF::core)
  add_library(CAF::openssl UNKNOWN IMPORTED)
  set_target_properties(CAF::openssl PROPERTIES
    IMPORTED_LOCATION ${CAF017_OPENSSL_LIBRARY}
    INTERFACE_LINK_LIBRARIES "CAF::io;OpenSSL::SSL;OpenSSL::Crypto")
endif()
