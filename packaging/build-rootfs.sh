#!/bin/bash
# Builds the gpuscope image's root file system without pulling anything from
# an image registry: mmdebstrap makes a minimal Debian 12 from Debian's own
# packages, installs the gpuscope .deb into it and adds the unprivileged
# user the image runs as (uid 65532, as packaging/Dockerfile).  Then, given a
# tag, imports it as an image into Docker (when a daemon answers), podman or
# buildah, with the Dockerfile's user, entry point, command and environment.
#
#   packaging/build-rootfs.sh DEB OUT_DIR [IMAGE_TAG]
#   packaging/build-rootfs.sh build-rel/gpuscope_0.1.0_amd64.deb /tmp/gpuscope-rootfs gpuscope:0.1.0
#   packaging/build-rootfs.sh --import OUT_DIR/rootfs.tar IMAGE_TAG     (import only)
#
# OUT_DIR/rootfs.tar is the root file system (about 200 MB); run the image with
#   docker run --rm --runtime nvidia --read-only -p 9400:9400 gpuscope:0.1.0
set -euo pipefail
changes=(--change 'USER 65532:65532' --change 'ENTRYPOINT ["/usr/bin/gpuscope"]'
	 --change 'CMD ["export","--listen",":9400","--names","both"]' --change 'EXPOSE 9400'
	 --change 'ENV NVIDIA_VISIBLE_DEVICES=all' --change 'ENV NVIDIA_DRIVER_CAPABILITIES=utility')
import_image() { # TAR TAG
	if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
		docker import "${changes[@]}" "$1" "$2"
	elif command -v podman >/dev/null; then
		podman import "${changes[@]}" "$1" "$2"
	elif command -v buildah >/dev/null; then
		ctr=$(buildah from scratch)
		buildah add "$ctr" "$1" /
		buildah config --user 65532:65532 --entrypoint '["/usr/bin/gpuscope"]' \
			--cmd 'export --listen :9400 --names both' --port 9400 \
			--env NVIDIA_VISIBLE_DEVICES=all --env NVIDIA_DRIVER_CAPABILITIES=utility "$ctr"
		buildah commit "$ctr" "$2"
	else
		echo "build-rootfs: no Docker daemon answers and neither podman nor buildah is installed: $1 is not imported" >&2
		return 3
	fi
}
if [ "${1:-}" = --import ]; then
	import_image "${2:?the root file system tar}" "${3:?the image tag}"
	exit
fi
DEB=$(readlink -f "${1:?the gpuscope .deb}")
OUT=${2:?output directory}
TAG=${3:-}
SUITE=${SUITE:-bookworm}
command -v mmdebstrap >/dev/null || { echo "build-rootfs: mmdebstrap is not installed (apt-get install mmdebstrap)" >&2; exit 3; }
mkdir -p "$OUT"
# --variant=apt: dpkg, apt and their essentials; the .deb pulls its own libraries
mmdebstrap --variant=apt --include=ca-certificates \
	--customize-hook='copy-in '"$DEB"' /tmp' \
	--customize-hook='chroot "$1" sh -c "apt-get install -y --no-install-recommends /tmp/$(basename '"$DEB"') && rm /tmp/*.deb"' \
	--customize-hook='chroot "$1" useradd --system --uid 65532 --no-create-home --shell /usr/sbin/nologin gpuscope' \
	--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
	"$SUITE" "$OUT/rootfs.tar"
echo "build-rootfs: $OUT/rootfs.tar ($(du -h "$OUT/rootfs.tar" | cut -f1))"
[ -z "$TAG" ] || import_image "$OUT/rootfs.tar" "$TAG"
