#!/usr/bin/env bash
# Builds the keepalived image of deploy/kubernetes/kubeadm/keepalived.yaml from Debian packages
# alone, as scripts/image.sh builds vigil's: scripts/keepalived_image.sh. Prints the image's name
# (localhost/vigil-keepalived:UPSTREAM_VERSION, e.g. 2.2.7; also tagged :latest).
# $VIGIL_IMAGE_OUT: where the root file system's tar goes (build/keepalived-image).
#
# mmdebstrap extracts Debian's keepalived with its dependencies from this machine's apt sources;
# then only keepalived and the shared libraries it loads are kept (readelf's NEEDED, followed
# to the end): its Depends pull in perl, iproute2 and SNMP's MIBs, which a keepalived that runs
# VRRP with a track_file never uses. No shell: keepalived.conf runs no script. buildah makes the
# image. Reproducible: SOURCE_DATE_EPOCH is the last commit's date, and the tar
# (rootfs.tar, its sha256 printed to stderr) is sorted, dated and owned the same way every time.
# Honours CONTAINERS_CONF and CONTAINERS_STORAGE_CONF, as podman does.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in mmdebstrap buildah dpkg-deb readelf; do
  if ! command -v "$tool" >/dev/null; then
    echo "keepalived image: $tool is missing (bash scripts/setup.sh --tests)" >&2
    exit 1
  fi
done
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
revision=$(git rev-parse HEAD)
source=${VIGIL_SOURCE_URL:-$(git config --get remote.origin.url || echo unknown)}
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)

sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -f "$f" ]] && grep -q '^[^#]' "$f" && sources+=("$f")
done
((${#sources[@]})) || { echo "keepalived image: no apt sources configured" >&2; exit 1; }

out=${VIGIL_IMAGE_OUT:-build/keepalived-image}
out=$(realpath -m "$out")
full="$out/full" root="$out/root"
rm -rf "$full" "$root" "$out/rootfs.tar" "$out/version"
mkdir -p "$out"

# The package's version, read from the .deb apt fetched (the extract variant keeps no dpkg
# database to ask afterwards).
version_hook="dpkg-deb -f \"\$1\"/var/cache/apt/archives/keepalived_*.deb Version >'$out/version'"
nice -n 19 mmdebstrap --quiet --variant=extract --include=keepalived --format=directory \
  --extract-hook="$version_hook" "$suite" "$full" "${sources[@]}" >&2
version=$(cat "$out/version")
upstream=${version#*:}
upstream=${upstream%-*}
tag=${upstream//[^A-Za-z0-9_.-]/-}

# keepalived and every library it loads, found as the dynamic loader finds them, each symlink
# with its target.
keep=(usr/sbin/keepalived)
lib_dirs=("lib/$multiarch" "usr/lib/$multiarch" lib usr/lib lib64)
todo=(usr/sbin/keepalived)
while ((${#todo[@]})); do
  file=${todo[0]}
  todo=("${todo[@]:1}")
  interp=$(readelf -l "$full/$file" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)]/\1/p')
  for name in ${interp:+"$interp"} $(readelf -d "$full/$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    found=""
    if [[ "$name" == /* ]]; then
      [[ -e "$full$name" ]] && found=${name#/}
    else
      for d in "${lib_dirs[@]}"; do
        if [[ -e "$full/$d/$name" ]]; then found="$d/$name"; break; fi
      done
    fi
    [[ -n "$found" ]] || { echo "keepalived image: $file needs $name, not found" >&2; exit 1; }
    path=$found
    while [[ -L "$full/$path" ]]; do  # the link and what it points at
      [[ " ${keep[*]} " == *" $path "* ]] || keep+=("$path")
      target=$(readlink "$full/$path")
      [[ "$target" == /* ]] && path=${target#/} || path=$(dirname "$path")/$target
      path=$(realpath -s -m --relative-to=/ "/$path")  # -s: not through the host's links
    done
    if [[ " ${keep[*]} " != *" $path "* ]]; then
      keep+=("$path")
      todo+=("$path")
    fi
  done
done
mkdir -p "$root"
(cd "$full" && cp -a --parents "${keep[@]}" "$root/")
rm -rf "$full"
# root alone (keepalived needs no other user: it runs no script); /run for its pid files, /tmp.
install -d -m 0755 "$root/etc" "$root/etc/keepalived" "$root/run"  # mount points
install -d -m 1777 "$root/tmp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
chmod 0755 "$root"

tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime --numeric-owner --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  -C "$root" -cf "$out/rootfs.tar" .
rm -rf "$root"
echo "keepalived image: rootfs.tar sha256 $(sha256sum "$out/rootfs.tar" | cut -d' ' -f1)" >&2

export BUILDAH_FORMAT=docker  # as vigil's image (scripts/image.sh)
ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah add --quiet "$ctr" "$out/rootfs.tar" / >/dev/null
# In the foreground, logging to stderr, VRRP only (no LVS): what keepalived.yaml runs.
buildah config \
  --os linux --arch "$(dpkg --print-architecture)" \
  --env PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  --entrypoint '["keepalived"]' \
  --cmd '["--dont-fork","--log-console","--log-detail","--vrrp","-f","/etc/keepalived/keepalived.conf"]' \
  --stop-signal SIGTERM \
  --label org.opencontainers.image.title=vigil-keepalived \
  --label "org.opencontainers.image.description=keepalived $version (Debian $suite) for vigil's kubeadm static pods" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.revision=$revision" \
  --label "org.opencontainers.image.source=$source" \
  --label org.opencontainers.image.licenses=GPL-2.0-or-later \
  "$ctr"
buildah commit --quiet --format docker --timestamp "$SOURCE_DATE_EPOCH" --rm "$ctr" \
  "localhost/vigil-keepalived:$tag" >/dev/null
trap - EXIT
buildah tag "localhost/vigil-keepalived:$tag" localhost/vigil-keepalived:latest
echo "localhost/vigil-keepalived:$tag"
