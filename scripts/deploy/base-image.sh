#!/usr/bin/env bash
# Makes the Debian base image the Containerfile builds FROM where no registry can be pulled from: mmdebstrap builds
# a minimal Debian from Debian's own packages and podman imports it. The tag carries a hash of the suite and package
# list, so the ~20 s build runs once per list; `--refresh` rebuilds it (to take Debian's latest security updates).
# Prints the image's name on its last line.
set -euo pipefail

suite=${LAGOON_BASE_SUITE:-bookworm}
# ca-certificates: TLS to upstream model APIs and the npm registry; the rest of the runtime is in minbase
# (libc, libstdc++ for the Node binary).
packages=ca-certificates
key=$(printf '%s\n' "$suite" "$packages" minbase | sha256sum | cut -c1-12)
image="localhost/lagoon-debian-base:$suite-$key"

# One maker at a time (two test files may ask at once); the second then finds the image.
exec 9>"${TMPDIR:-/tmp}/lagoon-base-image.lock"
flock 9
if [ "${1:-}" != "--refresh" ] && podman image exists "$image"; then
  echo "$image"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "base-image: mmdebstrap $suite ($packages)" >&2
mmdebstrap --quiet --variant=minbase --include="$packages" "$suite" "$tmp/base.tar" >&2
podman import --quiet --change 'CMD ["/bin/bash"]' "$tmp/base.tar" "$image" >&2
echo "$image"
