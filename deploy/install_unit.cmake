# Install-time part of deploy/install.cmake: the systemd unit and the example config, placed and
# written for CMAKE_INSTALL_PREFIX as it is now (GNUInstallDirs' rule: the prefix /usr keeps its
# config in /etc, any other prefix in PREFIX/etc). file(INSTALL) puts DESTDIR in front itself.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(CMAKE_INSTALL_FULL_SYSCONFDIR "/etc")
else()
  set(CMAKE_INSTALL_FULL_SYSCONFDIR "${CMAKE_INSTALL_PREFIX}/etc")
endif()
set(CMAKE_INSTALL_FULL_BINDIR "${CMAKE_INSTALL_PREFIX}/${VIGIL_BINDIR}")
# One file per destination: two installs at once (tests, CPack beside a developer) do not share it.
string(MD5 unit_key "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(unit "${VIGIL_BINARY_DIR}/deploy/unit-${unit_key}/vigil.service")
configure_file("${VIGIL_SOURCE_DIR}/deploy/systemd/vigil.service.in" "${unit}" @ONLY)
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE FILES "${unit}")
file(INSTALL DESTINATION "${CMAKE_INSTALL_FULL_SYSCONFDIR}/vigil" TYPE FILE
     RENAME vigil.yaml.example FILES "${VIGIL_SOURCE_DIR}/deploy/vigil.yaml")
