#!/usr/bin/env bash
# Builds vigil's OCI image from Debian packages alone, with no container registry:
# scripts/image.sh. Prints the image's name (localhost/vigil:VERSION; also tagged :latest).
# scripts/image.sh --rootfs: only the root file system's tar; prints its path.
# $VIGIL_IMAGE_OUT: where the tar goes (build/image).
#
# The .deb of scripts/package.sh (or $VIGIL_DEB), the shared libraries it depends on extracted by
# mmdebstrap from this machine's Debian apt sources, and nothing else: no shell, no apt, no dpkg
# database, no docs. buildah makes the image (podman import cannot set a HEALTHCHECK).
# Reproducible: SOURCE_DATE_EPOCH is the last commit's date, so two builds of one commit against
# one state of the archive give the same root file system (build/image/rootfs.tar, whose sha256 is
# printed to stderr). Honours CONTAINERS_CONF and CONTAINERS_STORAGE_CONF, as podman does.
set -euo pipefail
cd "$(dirname "$0")/.."
rootfs_only=""
if [[ "${1:-}" == "--rootfs" ]]; then rootfs_only=1; fi

for tool in mmdebstrap buildah dpkg-deb; do
  if ! command -v "$tool" >/dev/null; then
    echo "image: $tool is missing (bash scripts/setup.sh --tests)" >&2
    exit 1
  fi
done
deb=${VIGIL_DEB:-}
if [[ -z "$deb" ]]; then
  deb=$(nice -n 19 bash scripts/package.sh)
fi
deb=$(realpath "$deb")
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
revision=$(git rev-parse HEAD)
# Where the source is: $VIGIL_SOURCE_URL, else the checkout's origin.
source=${VIGIL_SOURCE_URL:-$(git config --get remote.origin.url || echo unknown)}
version=$(dpkg-deb -f "$deb" Version)
tag=${version//[^A-Za-z0-9_.-]/-}  # an image tag allows neither "+" nor "~"
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")

# The libraries: the package's Depends without adduser and init-system-helpers, which only its
# postinst uses (the image runs no maintainer script; its user is written below).
libraries=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/[[:space:]]//g' |
  grep -vx -e adduser -e init-system-helpers -e '' | paste -sd,)

# The machine's own apt sources (the only network reachable here), each file as one mirror.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -f "$f" ]] && grep -q '^[^#]' "$f" && sources+=("$f")
done
((${#sources[@]})) || { echo "image: no apt sources configured" >&2; exit 1; }

out=${VIGIL_IMAGE_OUT:-build/image}
root="$out/root"
rm -rf "$root" "$out/rootfs.tar"
mkdir -p "$out"

# The image's user: a fixed uid, not the package's (a system uid each host picks for itself), so
# that files on a host path can be given to it: chown 65532 /etc/vigil/token.
uid=65532
# The package and the user, in the extract step (the extract variant has no customize step), on
# the host with the root file system as $1.
add_vigil=$(cat <<EOF
set -e
dpkg-deb -x '$deb' "\$1"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nvigil:x:$uid:$uid:vigil:/var/lib/vigil:/usr/sbin/nologin\n' >"\$1/etc/passwd"
printf 'root:x:0:\nvigil:x:$uid:\n' >"\$1/etc/group"
EOF
)
nice -n 19 mmdebstrap --quiet --variant=extract --include="$libraries" --format=directory \
  --extract-hook="$add_vigil" "$suite" "$root" "${sources[@]}" >&2
# What a process that only runs vigil does not need: apt's and dpkg's state, docs, the unit and the
# upgrade helper (systemd's), device nodes (the runtime mounts /dev). Removed after mmdebstrap,
# not in a hook: during the hooks /dev is mounted and mmdebstrap's own clean-up of apt's files
# is still to come.
(cd "$root" && rm -rf dev/* etc/apt etc/dpkg etc/fstab var/lib/apt var/lib/dpkg var/cache var/log \
  usr/share/doc usr/share/man usr/share/info usr/share/locale usr/share/lintian usr/share/gcc \
  usr/share/gdb usr/share/libgcrypt20 usr/share/bash-completion usr/lib/systemd usr/libexec/vigil)
# State (admin.state_file) and the admin socket's directory, the user's; /tmp for anyone. With
# --read-only these are where a volume or a tmpfs goes.
install -d -o "$uid" -g "$uid" -m 0750 "$root/var/lib/vigil" "$root/run/vigil"
install -d -m 1777 "$root/tmp"

# One tar of it, ordered and dated so that its bytes depend on its contents alone.
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime --numeric-owner --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  -C "$root" -cf "$out/rootfs.tar" .
rm -rf "$root"
echo "image: rootfs.tar sha256 $(sha256sum "$out/rootfs.tar" | cut -d' ' -f1)" >&2
if [[ -n "$rootfs_only" ]]; then
  echo "$out/rootfs.tar"
  exit 0
fi

export BUILDAH_FORMAT=docker  # OCI's image config has no field for the health check
ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah add --quiet "$ctr" "$out/rootfs.tar" / >/dev/null
buildah config \
  --os linux --arch "$(dpkg --print-architecture)" \
  --env PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  --user "$uid:$uid" --workingdir /var/lib/vigil \
  --entrypoint '["vigil"]' --cmd '["serve","-c","/etc/vigil/vigil.yaml"]' \
  --stop-signal SIGTERM \
  --healthcheck 'CMD vigil health --exit-code' --healthcheck-interval 10s \
  --healthcheck-timeout 3s --healthcheck-retries 3 \
  --label org.opencontainers.image.title=vigil \
  --label "org.opencontainers.image.description=$(dpkg-deb -f "$deb" Description | head -1)" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.revision=$revision" \
  --label "org.opencontainers.image.source=$source" \
  --label org.opencontainers.image.licenses=Apache-2.0 \
  "$ctr"
buildah commit --quiet --format docker --timestamp "$SOURCE_DATE_EPOCH" --rm "$ctr" \
  "localhost/vigil:$tag" >/dev/null
trap - EXIT
buildah tag "localhost/vigil:$tag" localhost/vigil:latest
echo "localhost/vigil:$tag"
