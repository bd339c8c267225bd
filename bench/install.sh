# shellcheck shell=sh
# Sourced by the benchmarks' run.sh (bench/*/run.sh, POSIX sh): the root check, and installing
# the Debian 12 packages a benchmark needs when something is missing.
#
#   . "$here/../install.sh"
#   require_root "why"            # exits 2 with "run.sh: run as root (why)" unless root
#   need TOOL...                  # package TOOL is wanted when TOOL is not on PATH
#   need_as TOOL PACKAGE...       # the PACKAGEs are wanted when TOOL is not on PATH
#   need_file PATH PACKAGE        # PACKAGE is wanted when PATH does not exist
#   install_missing [PACKAGE...]  # when anything is wanted: apt-get install the given PACKAGEs,
#                                 # or, with none given, just what is wanted

missing=""

require_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "run.sh: run as root ($1)" >&2
    exit 2
  fi
}

need() {
  for need_tool in "$@"; do
    need_as "$need_tool" "$need_tool"
  done
}

need_as() {
  need_tool=$1
  shift
  command -v "$need_tool" >/dev/null 2>&1 || missing="$missing $*"
}

need_file() {
  [ -e "$1" ] || missing="$missing $2"
}

install_missing() {
  [ -n "$missing" ] || return 0
  echo "run.sh: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  [ $# -gt 0 ] || set -- $missing
  # Only the packages named; an out-of-date package index is refreshed once.
  apt-get install -y "$@" || { apt-get update && apt-get install -y "$@"; }
}
