#!/bin/bash
# Builds the gpuscope image's root file system without pulling anything from
# an image registry: mmdebstrap makes a minimal Debian 12 from Debian's own
# packages, installs the gpuscope .deb into it and adds the unprivileged
# user the image runs as (uid 65532, as packaging/Dockerfile).  Then, when
# podman or buildah is there, imports it as an image.
#
#   packaging/build-rootfs.sh DEB OUT_DIR [IMAGE_TAG]
#   packaging/build-rootfs.sh build-rel/gpuscope_0.1.0_amd64.deb /tmp/gpuscope-rootfs gpuscope:0.1.0
#
# OUT_DIR/rootfs.tar is the root file system; with a tag it is also imported:
#   podman import --change 'USER 65532' --change 'ENTRYPOINT ["/usr/bin/gpuscope"]' \
#     --change 'CMD ["export","--listen",":9400"]' OUT_DIR/rootfs.tar TAG
set -euo pipefail
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
if [ -n "$TAG" ]; then
	changes=(--change 'USER 65532:65532' --change 'ENTRYPOINT ["/usr/bin/gpuscope"]'
		 --change 'CMD ["export","--listen",":9400","--names","both"]' --change 'EXPOSE 9400'
		 --change 'ENV NVIDIA_VISIBLE_DEVICES=all' --change 'ENV NVIDIA_DRIVER_CAPABILITIES=utility')
	if command -v podman >/dev/null; then
		podman import "${changes[@]}" "$OUT/rootfs.tar" "$TAG"
	elif command -v buildah >/dev/null; then
		ctr=$(buildah from scratch)
		buildah add "$ctr" "$OUT/rootfs.tar" /
		buildah config --user 65532:65532 --entrypoint '["/usr/bin/gpuscope"]' \
			--cmd 'export --listen :9400 --names both' --port 9400 \
			--env NVIDIA_VISIBLE_DEVICES=all --env NVIDIA_DRIVER_CAPABILITIES=utility "$ctr"
		buildah commit "$ctr" "$TAG"
	else
		echo "build-rootfs: neither podman nor buildah: $OUT/rootfs.tar is not imported" >&2
	fi
fi
