#!/usr/bin/env bash
# Installs everything Lagoon needs on a fresh Debian machine, builds the app, and starts it on its embedded default
# (SQLite under ./data, the demo model). `--no-start` stops after the build (CI uses that).
set -euo pipefail
cd "$(dirname "$0")/.."

start=1
[ "${1:-}" = "--no-start" ] && start=0

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# System packages: Node.js/npm to bootstrap (the project then runs on the Node 24 it installs from npm), the
# PostgreSQL and Redis servers and the Chromium the test suite runs against (Playwright drives Debian's build; it
# never downloads a browser of its own).
missing=()
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v pg_ctlcluster >/dev/null 2>&1 || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v g++ >/dev/null 2>&1 || missing+=(g++ make python3)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# Media engines that run here: ffmpeg encodes audio and video; pocketsphinx (with its US English model) transcribes.
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v pocketsphinx_continuous >/dev/null 2>&1 || missing+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us ] || missing+=(pocketsphinx-en-us)
# Containers (the image, the compose file and their tests): Podman with runc, netavark and aardvark-dns (compose
# services find each other by name), iptables (netavark sets up every network and published port with it: without
# it no container on a network starts), mmdebstrap for a Debian base image where no registry can be pulled from. The
# settings they need on some hosts are scripts/deploy/containers.conf, passed per command (CONTAINERS_CONF).
command -v podman >/dev/null 2>&1 || missing+=(podman uidmap fuse-overlayfs slirp4netns)
command -v runc >/dev/null 2>&1 || missing+=(runc)
[ -x /usr/lib/podman/netavark ] || missing+=(netavark)
[ -x /usr/lib/podman/aardvark-dns ] || missing+=(aardvark-dns)
[ -x /usr/sbin/iptables ] || missing+=(iptables)
command -v podman-compose >/dev/null 2>&1 || missing+=(podman-compose)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm checks every package's `engines` against the Node that runs it, and the project runs on the Node 24 it
# installs from npm (the `node` package), so npm runs on that same Node: when the system's is older, npx fetches the
# locked version once and npm's own CLI runs under it.
node_version=$(sed -n '/"node_modules\/node"/,/"version"/s/.*"version": "\(.*\)".*/\1/p' package-lock.json)
run_npm() {
  if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then npm "$@"
  else npm exec --yes --package="node@$node_version" -- sh -c 'exec node "$npm_execpath" "$@"' npm "$@"; fi
}

# node-llama-cpp lists ~600 MB of CUDA, Vulkan and other-platform builds as optional dependencies; the CPU build
# we use (and Next's, Tailwind's, Biome's native builds) are direct dependencies, so optional ones are left out.
# Other platforms' builds a registry mirror lacks are still recorded in the lockfile (scripts/lock-platforms.ts),
# which is what lets `npm ci` check it.
echo "setup: npm ci (package-lock.json) on Node $node_version"
# onnxruntime-node's install step would fetch its CUDA libraries from NuGet; its CPU build ships in the package. npm 11
# skips that step (package.json's allowScripts), an older npm by this variable.
ONNXRUNTIME_NODE_INSTALL=skip run_npm ci --no-audit --no-fund --omit=optional

echo "setup: building the app"
NEXT_TELEMETRY_DISABLED=1 npm run build

if [ "$start" = 1 ]; then
  exec npm start
fi
