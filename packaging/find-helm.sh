#!/bin/bash
# Prints the helm to use: $GPUSCOPE_HELM, else helm on PATH, else the one
# tools/get-helm.sh unpacked into .cache/helm/ of the source tree.  Exit 1
# when there is none (helm is not packaged by Debian).
root=$(cd "$(dirname "$0")/.." && pwd)
for h in "${GPUSCOPE_HELM:-}" "$(command -v helm 2>/dev/null)" "$root/.cache/helm/helm"; do
	if [ -n "$h" ] && [ -x "$h" ]; then
		echo "$h"
		exit 0
	fi
done
exit 1
