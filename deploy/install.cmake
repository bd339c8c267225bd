# What `cmake --install` puts where (GNUInstallDirs: with the prefix /usr, the config goes to
# /etc), and the Debian package CPack builds from it (scripts/package.sh).
include(GNUInstallDirs)

install(TARGETS vigil RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The unit names the binary and the config by the prefix of the install, not of the configure:
# `cmake --install build --prefix /usr` on a default (/usr/local) build must give /usr/bin/vigil
# and /etc/vigil. deploy/install_unit.cmake runs at install time (CPack too: prefix /usr, DESTDIR
# its staging directory).
install(CODE "set(VIGIL_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
set(VIGIL_BINARY_DIR \"${PROJECT_BINARY_DIR}\")
set(VIGIL_BINDIR \"${CMAKE_INSTALL_BINDIR}\")")
install(SCRIPT ${PROJECT_SOURCE_DIR}/deploy/install_unit.cmake)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/bash-completion/vigil
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/deploy/vigil.yaml DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# The pair's and the fleet's configs, as docs/ha.md and the system tests use them.
install(FILES ${PROJECT_SOURCE_DIR}/deploy/keepalived/keepalived.conf
              ${PROJECT_SOURCE_DIR}/deploy/keepalived/vigil-keepalived-track.service
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/keepalived)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/bird/vigil-node.conf
              ${PROJECT_SOURCE_DIR}/deploy/bird/router.conf
              ${PROJECT_SOURCE_DIR}/deploy/bird/vigil-bgp-health.service
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/bird)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/bird/vigil-bgp-health
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/bird)
# Alerts with their runbook (each alert's runbook_url points at the installed runbook.md), and
# the dashboard.
install(FILES ${PROJECT_SOURCE_DIR}/docs/runbook.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/deploy/prometheus/vigil-rules.yml
              ${PROJECT_SOURCE_DIR}/deploy/prometheus/vigil-rules.test.yml
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/prometheus)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/grafana/vigil-dashboard.json
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/grafana)
# The postinst's way to put an upgrade in service: `vigil upgrade`, or try-restart when it cannot.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/debian/upgrade-or-restart
        DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/vigil)

# Man pages: vigil(1) from `vigil --help-all` (help2man: every verb), vigil.yaml(5) from the key tables, so
# neither drifts from what the binary does. Running the binary at build time is skipped for
# sanitizer builds, whose runtime would add its own output.
find_program(HELP2MAN help2man)
find_program(GZIP gzip)
if(HELP2MAN AND GZIP AND NOT VIGIL_SANITIZE)
  set(man ${PROJECT_BINARY_DIR}/man)
  add_custom_command(
    OUTPUT ${man}/vigil.1.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${man}
    COMMAND ${HELP2MAN} --no-info --no-discard-stderr --help-option=--help-all
            --version-string=${PROJECT_VERSION}
            --include=${PROJECT_SOURCE_DIR}/deploy/man/vigil.h2m
            --section=1 --output=${man}/vigil.1
            $<TARGET_FILE:vigil>
    COMMAND ${GZIP} -9nf ${man}/vigil.1
    DEPENDS vigil ${PROJECT_SOURCE_DIR}/deploy/man/vigil.h2m
    COMMENT "vigil(1) from vigil --help")
  add_custom_command(
    OUTPUT ${man}/vigil.yaml.5.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${man}
    COMMAND vigil-yaml-man ${PROJECT_VERSION} > ${man}/vigil.yaml.5
    COMMAND ${GZIP} -9nf ${man}/vigil.yaml.5
    DEPENDS vigil-yaml-man
    COMMENT "vigil.yaml(5) from the config key tables")
  add_custom_target(man ALL DEPENDS ${man}/vigil.1.gz ${man}/vigil.yaml.5.gz)
  install(FILES ${man}/vigil.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${man}/vigil.yaml.5.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
endif()

# Debian's copyright and changelog.Debian (gzip -9n, dated by the commit, so that two builds of
# one commit are the same). The maintainer is the commit's author unless
# -DVIGIL_PACKAGE_MAINTAINER="Name <address>" says otherwise.
execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} log -1 --format=%an\ <%ae>%n%ct
                OUTPUT_VARIABLE head_commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
string(REPLACE "\n" ";" head_commit "${head_commit}")
list(LENGTH head_commit head_fields)
if(head_fields EQUAL 2)
  list(GET head_commit 0 head_author)
  list(GET head_commit 1 head_time)
else()
  set(head_author "the vigil authors <vigil@localhost>")
  set(head_time 0)
endif()
set(VIGIL_PACKAGE_MAINTAINER "${head_author}" CACHE STRING "the package's Maintainer field")
set(saved_epoch "$ENV{SOURCE_DATE_EPOCH}")
set(ENV{SOURCE_DATE_EPOCH} ${head_time})
string(TIMESTAMP VIGIL_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(ENV{SOURCE_DATE_EPOCH} "${saved_epoch}")
configure_file(${PROJECT_SOURCE_DIR}/deploy/debian/changelog.in
               ${PROJECT_BINARY_DIR}/deploy/changelog.Debian @ONLY)
if(GZIP)
  add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/deploy/changelog.Debian.gz
    COMMAND ${GZIP} -9nc ${PROJECT_BINARY_DIR}/deploy/changelog.Debian >
            ${PROJECT_BINARY_DIR}/deploy/changelog.Debian.gz
    DEPENDS ${PROJECT_BINARY_DIR}/deploy/changelog.Debian
    COMMENT "changelog.Debian.gz")
  add_custom_target(debian_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/deploy/changelog.Debian.gz)
  install(FILES ${PROJECT_BINARY_DIR}/deploy/changelog.Debian.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()
install(FILES ${PROJECT_SOURCE_DIR}/deploy/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package (cpack -G DEB). Its maintainer scripts are in deploy/debian.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vigil)
set(CPACK_PACKAGE_VENDOR "the vigil authors")
set(CPACK_PACKAGE_CONTACT "${VIGIL_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "health-checking Layer-4 load balancer for Kubernetes and OpenShift control planes")
set(CPACK_PACKAGE_DESCRIPTION
    "vigil puts HTTPS /readyz checks, Octavia-style member status with the reason, and failover \
that clients do not notice in front of API servers, machine-config servers and ingress.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser, init-system-helpers")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/deploy/debian/postinst ${PROJECT_SOURCE_DIR}/deploy/debian/prerm
    ${PROJECT_SOURCE_DIR}/deploy/debian/postrm ${PROJECT_SOURCE_DIR}/deploy/debian/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
