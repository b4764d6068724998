#!/usr/bin/env bash
# A Docker engine and the images the container tests need, on a machine that reaches no image
# registry (only the Debian mirror, Maven Central and the Go module proxy):
#   - docker.io from apt when dockerd is missing; dockerd started in the background when none answers
#     (log: $NE_TOOLS_DIR/docker/dockerd.log);
#   - the base image $BASE_IMAGE: Debian bookworm with a Java 17 runtime (debootstrap + docker import);
#   - Compose v2 built from source with Go (release pinned in hack/tools/docker/compose-version),
#     installed as the docker CLI plugin ~/.docker/cli-plugins/docker-compose;
#   - the Kafka test image $KAFKA_IMAGE (hack/tools/docker/kafka): the apache/kafka image's contract,
#     Kafka's jars from Maven Central at the root pom's kafka.version, on the base image.
# Each result is cached in $NE_TOOLS_DIR and labelled with a hash of its inputs: a run with the same
# inputs only checks, and an image lost from the engine is loaded again from the cached tarball.
# The names are read by the tests (cli/pom.xml and the Testcontainers tests): keep them in step.
# Testcontainers runs without Ryuk (its image cannot be pulled and its module is not on the Go proxy):
# stream-processor/pom.xml sets TESTCONTAINERS_RYUK_DISABLED, and the tests remove their containers
# themselves (JUnit's container lifecycle, Testcontainers' JVM-exit hook, `docker compose down -v`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tools_dir="${NE_TOOLS_DIR:-$HOME/.cache/network-enforcer/tools}"
cache="$tools_dir/docker"
bin_dir="$tools_dir/bin"
mkdir -p "$cache" "$bin_dir"

kafka_version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$repo/pom.xml" | head -n1)"
compose_version="$(tr -d '[:space:]' < "$here/docker/compose-version")"
[[ -n "$kafka_version" && -n "$compose_version" ]] || { echo "docker.sh: cannot read the pinned versions" >&2; exit 1; }
BASE_IMAGE="network-enforcer-test/debian-jre:bookworm"
KAFKA_IMAGE="network-enforcer-test/kafka:$kafka_version"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

log() { echo "docker.sh: $*"; }
took() { log "$1 in $((SECONDS - $2))s"; }
total_start=$SECONDS

need_root() { ((EUID == 0)) || { echo "docker.sh: $1 needs root (or do it yourself and run this again)" >&2; exit 1; }; }

apt_install() {
  need_root "installing $*"
  log "installing $* with apt"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- engine -----------------------------------------------------------------------------------
if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
  apt_install docker.io
fi
if ! docker info >/dev/null 2>&1; then
  need_root "starting dockerd"
  log "starting dockerd (log: $cache/dockerd.log)"
  # Its own session so it outlives this script and the Maven build after it.
  setsid nohup dockerd >>"$cache/dockerd.log" 2>&1 </dev/null &
  deadline=$((SECONDS + 60))
  until docker info >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then
      echo "docker.sh: dockerd did not answer within 60 s; last lines of $cache/dockerd.log:" >&2
      tail -n 20 "$cache/dockerd.log" >&2
      exit 1
    fi
    sleep 1
  done
fi
log "engine $(docker version --format '{{.Server.Version}}') answers"

# An image with this label value is up to date; the base image's tarball can restore it.
image_recipe() { docker image inspect --format '{{index .Config.Labels "io.kubewarden.networkenforcer.recipe"}}' "$1" 2>/dev/null || true; }
restore() { # image, recipe, tarball: true when the engine has the image at that recipe afterwards
  [[ "$(image_recipe "$1")" == "$2" ]] && return 0
  [[ -f "$3" ]] || return 1
  log "loading $1 from $3"
  docker load -i "$3" >/dev/null
  [[ "$(image_recipe "$1")" == "$2" ]]
}
save() { # image, tarball: keep one tarball per image
  rm -f "${2%-*}"-*.tar
  docker save -o "$2.tmp" "$1"
  mv "$2.tmp" "$2"
}

# Each test build loads a new product image (Jib stamps the build time); drop the untagged earlier ones.
docker image prune --force --filter label=org.opencontainers.image.title=network-enforcer >/dev/null

# --- base image ---------------------------------------------------------------------------------
base_packages="openjdk-17-jre-headless"
base_recipe="$(printf 'bookworm minbase %s %s v1' "$base_packages" "$DEBIAN_MIRROR" | sha256sum | cut -c1-16)"
base_tar="$cache/base-$base_recipe.tar"
if restore "$BASE_IMAGE" "$base_recipe" "$base_tar"; then
  log "$BASE_IMAGE up to date"
else
  start=$SECONDS
  need_root "debootstrap"
  command -v debootstrap >/dev/null || apt_install debootstrap
  rootfs="$(mktemp -d "$cache/rootfs.XXXXXX")"
  trap 'rm -rf "$rootfs"' EXIT
  log "debootstrap bookworm with $base_packages (about a minute or two)"
  debootstrap --variant=minbase --include="$base_packages" bookworm "$rootfs" "$DEBIAN_MIRROR" >"$cache/debootstrap.log" 2>&1 \
    || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
  # Package caches and documentation have no place in a runtime image.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
  tar -C "$rootfs" --numeric-owner -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64' \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL io.kubewarden.networkenforcer.recipe=$base_recipe" \
    --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
  save "$BASE_IMAGE" "$base_tar"
  took "built $BASE_IMAGE" "$start"
fi

# --- Compose v2 -------------------------------------------------------------------------------
compose_bin="$bin_dir/docker-compose"
if [[ -x "$compose_bin" && "$(cat "$compose_bin.version" 2>/dev/null)" == "$compose_version" ]]; then
  log "docker compose $compose_version already in $bin_dir"
else
  start=$SECONDS
  command -v go >/dev/null || { echo "docker.sh: go is required to build Compose v2" >&2; exit 1; }
  log "building docker compose $compose_version with $(go version) (takes minutes)"
  # `go install` refuses the module (exclude directives): build ./cmd inside the downloaded module.
  module_dir="$(cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json \
    "github.com/docker/compose/v2@$compose_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -d "$module_dir" ]] || { echo "docker.sh: cannot download github.com/docker/compose/v2@$compose_version" >&2; exit 1; }
  (cd "$module_dir" && CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -trimpath \
    -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$compose_version" -o "$compose_bin.tmp" ./cmd)
  mv "$compose_bin.tmp" "$compose_bin"
  echo "$compose_version" > "$compose_bin.version"
  took "built docker compose $compose_version" "$start"
fi
plugins="$HOME/.docker/cli-plugins"
mkdir -p "$plugins"
cmp -s "$compose_bin" "$plugins/docker-compose" || install -m 0755 "$compose_bin" "$plugins/docker-compose"
log "$(docker compose version)"

# --- Kafka test image -------------------------------------------------------------------------
context="$here/docker/kafka"
kafka_recipe="$( (echo "$kafka_version $(docker image inspect --format '{{.Id}}' "$BASE_IMAGE")"
  cd "$context" && find . -type f ! -path './libs/*' | LC_ALL=C sort | xargs sha256sum) | sha256sum | cut -c1-16)"
# Not saved as a tarball: rebuilding it from the jars in ~/.m2 takes seconds.
if [[ "$(image_recipe "$KAFKA_IMAGE")" == "$kafka_recipe" ]]; then
  log "$KAFKA_IMAGE up to date"
else
  start=$SECONDS
  build="$(mktemp -d "$cache/kafka-context.XXXXXX")"
  trap 'rm -rf "$build"' EXIT
  cp -r "$context"/. "$build"/
  log "fetching Kafka $kafka_version jars from Maven Central"
  "$repo/mvnw" -B -ntp -q -Dstyle.color=never -f "$build/pom.xml" dependency:copy-dependencies -Dkafka.version="$kafka_version" \
    -DincludeScope=runtime -DoutputDirectory="$build/libs"
  # The legacy builder: the image only copies files, and Debian's engine has no BuildKit plugin.
  DOCKER_BUILDKIT=0 docker build -q --build-arg BASE_IMAGE="$BASE_IMAGE" \
    --label "io.kubewarden.networkenforcer.recipe=$kafka_recipe" -t "$KAFKA_IMAGE" "$build" >"$cache/kafka-build.log" 2>&1 \
    || { cat "$cache/kafka-build.log" >&2; exit 1; }
  rm -rf "$build"
  trap - EXIT
  took "built $KAFKA_IMAGE" "$start"
fi

took "images $BASE_IMAGE, $KAFKA_IMAGE and docker compose ready" "$total_start"
