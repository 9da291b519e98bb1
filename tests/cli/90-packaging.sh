#!/bin/bash
# What an operator installs (the Helm chart is 91-helm.sh's): the man
# pages; the systemd unit (tasks for 72 GPUs, restarts when NVML is missing); the Debian package
# (CPack) installs into a clean tree and runs; the image's root file system
# built with mmdebstrap runs gpuscope as the image's non-root user.  Each
# part runs only when its tools are present.
. "$TESTS/cli/lib.sh"

FAKE="$BUILDDIR/fake-nvml/libnvidia-ml.so.1"
SCEN="$SRCDIR/tests/fake-nvml/scenarios"

# ---- man pages: one per command ----
for c in $("$GPUSCOPE" --help | awk '/^  [a-z]+  /{print $1}'); do
	CHECKS=$((CHECKS + 1))
	[ -s "$BUILDDIR/man/gpuscope-$c.1" ] || fail "no man page for '$c'"
done
CHECKS=$((CHECKS + 1))
grep -q '^\.SH OPTIONS' "$BUILDDIR/man/gpuscope-top.1" 2>/dev/null || fail "gpuscope-top.1 has no OPTIONS"

# ---- the systemd unit: enough tasks for the threads, restarts after a missing library ----
UNIT="$SRCDIR/deploy/systemd/gpuscope-export.service"
unit_value() { sed -n "s/^$1=//p" "$UNIT" | tail -1; }
# the most --http-threads allows, from its own error
HMAX=$("$GPUSCOPE" export --http-threads 100000 2>&1 | sed -n "s/.*'--http-threads' must be between 1 and \([0-9]*\).*/\1/p")
CHECKS=$((CHECKS + 1))
[ -n "$HMAX" ] || fail "cannot read the --http-threads bound"
# the threads of an exporter of 72 GPUs (a GB200 NVL72 domain) at that many HTTP threads, the kubelet
# client and the kernel-log reader on
: >"$TMP/kmsg"
FAKE_NVML_SCENARIO="$SCEN/gb200-nvl72.ini" "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 \
	--http-threads "${HMAX:-64}" --kmsg "$TMP/kmsg" --kubernetes --pod-resources-kubelet-socket "$TMP/none.sock" \
	2>"$TMP/exp.log" &
EPID=$!
for _ in $(seq 1 200); do
	grep -q 'serving 72 GPUs' "$TMP/exp.log" && break
	kill -0 "$EPID" 2>/dev/null || break
	sleep 0.05
done
THREADS=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$EPID/status" 2>/dev/null)
kill -TERM "$EPID" 2>/dev/null
wait "$EPID" 2>/dev/null
CHECKS=$((CHECKS + 1))
if [ -z "$THREADS" ] || ! grep -q 'serving 72 GPUs' "$TMP/exp.log"; then
	fail "the 72-GPU exporter did not start: $(cat "$TMP/exp.log")"
else
	# and while a reload swaps the HTTP server (TLS on or off) both servers' threads run; gRPC's own
	# threads (none before a kubelet answers; 3 seen after) get 16; ExecReload's kill is one task
	NEED=$((THREADS + HMAX + 16 + 1))
	TASKS=$(unit_value TasksMax)
	CHECKS=$((CHECKS + 1))
	[ "${TASKS:-0}" -ge "$NEED" ] 2>/dev/null ||
		fail "TasksMax=$TASKS in the unit, but 72 GPUs at --http-threads $HMAX need $NEED tasks ($THREADS threads seen)"
fi
PREVENT=" $(unit_value RestartPreventExitStatus) "
CHECKS=$((CHECKS + 1))
case "$PREVENT" in *" 3 "*) fail "exit 3 (no NVML yet, as during a driver upgrade) must be retried: RestartPreventExitStatus=$PREVENT" ;; esac
CHECKS=$((CHECKS + 1))
case "$PREVENT" in *" 2 "*) ;; *) fail "exit 2 (a configuration error) should not be retried: RestartPreventExitStatus=$PREVENT" ;; esac
CHECKS=$((CHECKS + 1))
grep -q '^Restart=on-failure' "$UNIT" || fail "the unit does not restart on failure"
if command -v systemd-analyze >/dev/null; then
	# with the built binary in place of the installed one, which verify wants to exist
	sed "s|/usr/local/bin/gpuscope|$GPUSCOPE|" "$UNIT" >"$TMP/gpuscope-export.service"
	CHECKS=$((CHECKS + 1))
	systemd-analyze verify "$TMP/gpuscope-export.service" >"$TMP/verify" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$TMP/verify")"
	CHECKS=$((CHECKS + 1))
	! grep -q 'gpuscope-export.service' "$TMP/verify" || fail "systemd-analyze verify warns: $(cat "$TMP/verify")"
fi
# below the limit, the exporter says which limit (as root, ulimit -u binds an unprivileged user only);
# at 72 GPUs it runs at most 16 threads, so a limit of 8 tasks stops it at its GPU workers, and a
# timeout keeps an exporter that does start from holding the test
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	CHECKS=$((CHECKS + 1))
	FAKE_NVML_SCENARIO="$SCEN/gb200-nvl72.ini" setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 30 bash -c 'ulimit -u 8 && exec "$@"' sh "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 --kmsg none \
		>/dev/null 2>"$TMP/lim.err"
	rc=$?
	[ "$rc" = 3 ] || fail "exit $rc at a task limit of 8 with 72 GPUs, want 3: $(cat "$TMP/lim.err")"
	CHECKS=$((CHECKS + 1))
	grep -q "cannot start the gpu worker thread: .*TasksMax" "$TMP/lim.err" ||
		fail "the error does not name the task limit: $(cat "$TMP/lim.err")"
fi

# ---- the Debian package, installed into a clean tree ----
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null && [ -f "$BUILDDIR/CPackConfig.cmake" ]; then
	CHECKS=$((CHECKS + 1))
	(cd "$TMP" && cpack -G DEB --config "$BUILDDIR/CPackConfig.cmake" -B "$TMP/pkg") >"$TMP/cpack.log" 2>&1 ||
		fail "cpack: $(tail -20 "$TMP/cpack.log")"
	DEB=$(ls "$TMP"/pkg/gpuscope_*.deb 2>/dev/null | head -1)
	CHECKS=$((CHECKS + 1))
	if [ -z "$DEB" ]; then
		fail "cpack made no .deb: $(tail -5 "$TMP/cpack.log")"
	else
		dpkg-deb -c "$DEB" >"$TMP/files"
		for f in ./usr/bin/gpuscope ./usr/share/man/man1/gpuscope-export.1.gz ./usr/share/man/man1/gpuscope-top.1.gz \
			./usr/share/doc/gpuscope/copyright ./usr/share/doc/gpuscope/changelog.gz \
			./usr/lib/systemd/system/gpuscope-export.service ./etc/default/gpuscope-export \
			./etc/gpuscope/default-counters.csv ./etc/gpuscope/web-config.yml; do
			CHECKS=$((CHECKS + 1))
			grep -q " $f\$" "$TMP/files" || fail "the .deb lacks $f"
		done
		CHECKS=$((CHECKS + 1))
		dpkg-deb -f "$DEB" Depends | grep -q 'libjansson' || fail "Depends lacks libjansson: $(dpkg-deb -f "$DEB" Depends)"
		# dlopen()ed, so dpkg-shlibdeps cannot see them: GnuTLS and libyaml for the web config
		for p in libgnutls30 libyaml-0-2; do
			CHECKS=$((CHECKS + 1))
			dpkg-deb -f "$DEB" Depends | tr ',' '\n' | grep -q "^ *$p\b" ||
				fail "Depends lacks $p: $(dpkg-deb -f "$DEB" Depends)"
		done
		CHECKS=$((CHECKS + 1))
		dpkg-deb -e "$DEB" "$TMP/ctl" && grep -q '/etc/gpuscope/web-config.yml' "$TMP/ctl/conffiles" ||
			fail "the configuration is not marked conffiles"
		# the maintainer scripts enable the unit on installation and restart it on upgrade
		CHECKS=$((CHECKS + 1))
		grep -q 'deb-systemd-helper enable gpuscope-export.service' "$TMP/ctl/postinst" &&
			grep -q 'deb-systemd-invoke restart gpuscope-export.service' "$TMP/ctl/postinst" &&
			grep -q 'deb-systemd-invoke stop gpuscope-export.service' "$TMP/ctl/prerm" &&
			grep -q 'deb-systemd-helper purge gpuscope-export.service' "$TMP/ctl/postrm" ||
			fail "the maintainer scripts do not enable, restart, stop and purge the unit"
		CHECKS=$((CHECKS + 1))
		[ "$(dpkg-deb -f "$DEB" Description | wc -l)" -ge 4 ] ||
			fail "no long description: $(dpkg-deb -f "$DEB" Description)"
		if command -v lintian >/dev/null; then
			CHECKS=$((CHECKS + 1))
			lintian "$DEB" >"$TMP/lintian" 2>&1
			grep -qE '^[EW]: ' "$TMP/lintian" && fail "lintian: $(grep -E '^[EW]: ' "$TMP/lintian" | head -20)"
		else
			echo "SKIP: lintian is not installed (Debian package lintian, in debian-packages.txt)"
		fi
		mkdir -p "$TMP/root"
		dpkg-deb -x "$DEB" "$TMP/root"
		CHECKS=$((CHECKS + 1))
		readelf -S "$TMP/root/usr/bin/gpuscope" | grep -q '\.debug_info\|\.symtab' &&
			fail "the installed binary is not stripped"
		CHECKS=$((CHECKS + 1))
		zcat "$TMP/root/usr/share/man/man1/gpuscope-export.1.gz" | grep -q '^\.TH' ||
			fail "gpuscope-export.1.gz is not a man page"
		CHECKS=$((CHECKS + 1))
		grep -q '^ExecStart=/usr/bin/gpuscope export' "$TMP/root/usr/lib/systemd/system/gpuscope-export.service" ||
			fail "the unit does not run /usr/bin/gpuscope"
		CHECKS=$((CHECKS + 1))
		"$TMP/root/usr/bin/gpuscope" --version >"$TMP/v" 2>&1 || fail "installed gpuscope --version: $(cat "$TMP/v")"
		CHECKS=$((CHECKS + 1))
		FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" "$TMP/root/usr/bin/gpuscope" export --nvml "$FAKE" --once \
			-f "$TMP/root/etc/gpuscope/default-counters.csv" >"$TMP/once" 2>"$TMP/err" ||
			fail "installed gpuscope export --once: $(cat "$TMP/err")"
		CHECKS=$((CHECKS + 1))
		grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="7"' "$TMP/once" || fail "installed exporter served no GPU 7"
	fi
else
	echo "SKIP: the .deb needs cpack and dpkg-deb"
fi

# what the image parts below leave behind: the chroot's /proc, the container, the image, a private
# Docker daemon (which unmounts its layers when it stops, before they are removed)
image_cleanup() {
	[ -n "${PROC_MOUNTED:-}" ] && umount "$TMP/rootfs/proc"
	[ -n "${CTR_NAME:-}" ] && docker rm -f "$CTR_NAME" >/dev/null 2>&1
	[ -n "${IMG_TAG:-}" ] && docker rmi -f "$IMG_TAG" >/dev/null 2>&1
	if [ -n "${DPID:-}" ]; then
		kill "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
		# what it leaves mounted (its network namespace) would keep rm from the directory
		awk -v d="$TMP/docker/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | xargs -r umount -l
	fi
	rm -rf "$TMP"
}
# ---- the image's root file system (mmdebstrap, chroot as uid 65532) ----
if command -v mmdebstrap >/dev/null && [ "$(id -u)" = 0 ] && [ -n "${DEB:-}" ] && [ "${GPUSCOPE_TEST_ROOTFS:-1}" != 0 ]; then
	CHECKS=$((CHECKS + 1))
	if "$SRCDIR/packaging/build-rootfs.sh" "$DEB" "$TMP/img" >"$TMP/rootfs.log" 2>&1; then
		mkdir -p "$TMP/rootfs"
		tar -xf "$TMP/img/rootfs.tar" -C "$TMP/rootfs"
		mkdir -p "$TMP/rootfs/opt/fake"
		cp -a "$BUILDDIR"/fake-nvml/libnvidia-ml.so* "$TMP/rootfs/opt/fake/"
		cp "$SCEN/dgx-h100.ini" "$TMP/rootfs/opt/fake/"
		# a container has /proc; so must the chroot (sanitizer builds read their options there)
		mount -t proc proc "$TMP/rootfs/proc" 2>/dev/null && PROC_MOUNTED=1
		trap 'rc=$?; image_cleanup; exit "$rc"' EXIT
		CHECKS=$((CHECKS + 1))
		chroot --userspec=65532:65532 "$TMP/rootfs" /usr/bin/gpuscope --version >"$TMP/v" 2>&1 ||
			fail "gpuscope --version in the image: $(cat "$TMP/v")"
		CHECKS=$((CHECKS + 1))
		FAKE_NVML_SCENARIO=/opt/fake/dgx-h100.ini chroot --userspec=65532:65532 "$TMP/rootfs" \
			/usr/bin/gpuscope export --nvml /opt/fake/libnvidia-ml.so.1 --once >"$TMP/once" 2>"$TMP/err" ||
			fail "gpuscope export --once in the image: $(cat "$TMP/err")"
		CHECKS=$((CHECKS + 1))
		grep -q '^gpu_up{gpu="7"' "$TMP/once" || fail "the image's exporter served no GPU 7"
		CHECKS=$((CHECKS + 1))
		[ "$(stat -c %u "$TMP/rootfs/usr/bin/gpuscope")" = 0 ] || fail "the binary should belong to root, not the runtime user"
		if [ -n "${PROC_MOUNTED:-}" ]; then
			umount "$TMP/rootfs/proc"
			PROC_MOUNTED=""
		fi
	elif grep -q 'Failed to fetch\|Temporary failure resolving\|Could not resolve\|Unable to fetch' "$TMP/rootfs.log"; then
		echo "SKIP: mmdebstrap could not reach Debian's archive: $(grep -m1 'Failed\|failure\|resolve' "$TMP/rootfs.log")"
	else
		fail "build-rootfs.sh: $(tail -20 "$TMP/rootfs.log")"
	fi
else
	echo "SKIP: the image's root file system needs mmdebstrap, root and the .deb"
fi

# ---- the image in Docker: imported from that root file system, run read-only as uid 65532 ----
# Where no daemon answers (a CI container has no systemd) and dockerd is installed, the test runs
# a private one on its own socket, data directory and host networking; a daemon that cannot run a
# container here (docker run's own exit status, 125) is a skip that says why, not a failure.
docker_up() { docker info >/dev/null 2>&1; }
if [ -s "$TMP/img/rootfs.tar" ] && command -v docker >/dev/null && [ "${GPUSCOPE_TEST_DOCKER:-1}" != 0 ]; then
	if ! docker_up && command -v dockerd >/dev/null && [ "$(id -u)" = 0 ]; then
		mkdir -p "$TMP/docker"
		export DOCKER_HOST="unix://$TMP/docker/sock"
		dockerd --data-root "$TMP/docker/root" --exec-root "$TMP/docker/exec" -H "$DOCKER_HOST" \
			--pidfile "$TMP/docker/pid" --bridge none --iptables=false >"$TMP/dockerd.log" 2>&1 &
		DPID=$!
		for _ in $(seq 1 150); do
			docker_up && break
			kill -0 "$DPID" 2>/dev/null || break
			sleep 0.2
		done
	fi
	if docker_up; then
		IMG_TAG="gpuscope-test:$$"
		CHECKS=$((CHECKS + 1))
		"$SRCDIR/packaging/build-rootfs.sh" --import "$TMP/img/rootfs.tar" "$IMG_TAG" >"$TMP/import.log" 2>&1 ||
			fail "build-rootfs.sh --import: $(tail -5 "$TMP/import.log")"
		CHECKS=$((CHECKS + 1))
		[ "$(docker inspect -f '{{.Config.User}}' "$IMG_TAG" 2>&1)" = 65532:65532 ] || fail "the image does not run as 65532:65532"
		mkdir -p "$TMP/fake"
		cp -a "$BUILDDIR"/fake-nvml/libnvidia-ml.so* "$SCEN/dgx-h100.ini" "$TMP/fake/"
		RUN=(--read-only --network host -v "$TMP/fake:/opt/fake:ro" -e FAKE_NVML_SCENARIO=/opt/fake/dgx-h100.ini)
		CTR_NAME="gpuscope-test-$$"
		docker run -d --name "$CTR_NAME" "${RUN[@]}" "$IMG_TAG" \
			export --nvml /opt/fake/libnvidia-ml.so.1 --listen 127.0.0.1:0 --kmsg none >"$TMP/run.log" 2>&1
		rc=$?
		if [ "$rc" = 125 ]; then
			echo "SKIP: the Docker daemon cannot run a container here: $(tail -1 "$TMP/run.log")"
		else
			CHECKS=$((CHECKS + 1))
			[ "$rc" = 0 ] || fail "docker run: exit $rc: $(cat "$TMP/run.log")"
			URL=""
			for _ in $(seq 1 150); do
				URL=$(docker logs "$CTR_NAME" 2>&1 | sed -n 's|.*serving 8 GPUs on \(http://[^ ]*/metrics\).*|\1|p' | head -1)
				[ -n "$URL" ] && break
				sleep 0.2
			done
			CHECKS=$((CHECKS + 1))
			if [ -z "$URL" ]; then
				fail "the image's exporter did not start: $(docker logs "$CTR_NAME" 2>&1 | tail -5)"
			else
				python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
					"$URL" >"$TMP/scrape" 2>"$TMP/scrape.err" || fail "scraping the image's exporter: $(cat "$TMP/scrape.err")"
				CHECKS=$((CHECKS + 1))
				grep -q '^gpu_up{gpu="7".*} 1$' "$TMP/scrape" && grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="0"' "$TMP/scrape" ||
					fail "the image's exporter serves no GPU 7 or no temperature: $(head -5 "$TMP/scrape")"
			fi
			# the process runs as the image's user, under a root file system it cannot write
			CHECKS=$((CHECKS + 1))
			[ "$(docker exec "$CTR_NAME" /usr/bin/id -u 2>&1)" = 65532 ] || fail "the container does not run as uid 65532"
			CHECKS=$((CHECKS + 1))
			[ "$(docker inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$CTR_NAME")" = true ] || fail "the root file system is writable"
			docker rm -f "$CTR_NAME" >/dev/null 2>&1
			CTR_NAME=""
			# check judges the container as a container: a GPU host whose runtime mounts NVML only
			CHECKS=$((CHECKS + 1))
			docker run --rm "${RUN[@]}" "$IMG_TAG" check --nvml /opt/fake/libnvidia-ml.so.1 >"$TMP/check" 2>&1 ||
				fail "check in the image: exit $?: $(grep -E '^(fail|warn) ' "$TMP/check")"
			CHECKS=$((CHECKS + 1))
			grep -q '^skip *libcuda .*not mounted' "$TMP/check" && grep -q '^ok *container .*running in a container' "$TMP/check" ||
				fail "check in the image does not see the container: $(cat "$TMP/check")"
		fi
	else
		echo "SKIP: no Docker daemon answers$( [ -n "${DPID:-}" ] && printf ': dockerd: %s' "$(tail -1 "$TMP/dockerd.log")")"
	fi
else
	echo "SKIP: the image needs the root file system above and docker (Debian package docker.io)"
fi

finish
