#!/usr/bin/env bash
# Installs everything Lagoon needs on a fresh Debian machine, builds the app, and starts it on its embedded default
# (SQLite under ./data, the demo model). `--no-start` stops after the build (CI uses that).
set -euo pipefail
cd "$(dirname "$0")/.."

start=1
[ "${1:-}" = "--no-start" ] && start=0

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# System packages: Node.js/npm to bootstrap (the project then runs on the Node 24 it installs from npm), and the
# PostgreSQL and Redis servers and the Chromium the test suite runs against (Playwright drives Debian's build; it
# never downloads a browser of its own).
missing=()
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v pg_ctlcluster >/dev/null 2>&1 || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v g++ >/dev/null 2>&1 || missing+=(g++ make python3)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# node-llama-cpp lists ~600 MB of CUDA, Vulkan and other-platform builds as optional dependencies; the CPU build
# we use (and Next's compiler) are direct dependencies, so optional ones are left out. `npm install` (not `npm ci`):
# npm 11's ci check wants other platforms' optional packages in the lockfile, which npm itself does not record.
echo "setup: npm install (versions from package-lock.json)"
npm install --no-audit --no-fund --omit=optional

echo "setup: building the app"
NEXT_TELEMETRY_DISABLED=1 npm run build

if [ "$start" = 1 ]; then
  exec npm start
fi
