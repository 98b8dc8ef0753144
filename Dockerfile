#
# staffer - KEDA external scaler.  Two stages:
#   build    Debian 12 (bookworm): compiles build/staffer with `make` from
#            Debian's -dev packages, then scripts/rootfs.sh gathers the
#            runtime filesystem: the binary, exactly the shared libraries
#            it loads, CA certificates (https backends), the time zone
#            database (the metadata `timezone` of schedule windows) and
#            passwd/group for uid 65532;
#   runtime  that filesystem on `scratch`: no shell, no package manager,
#            nothing the binary does not load.
#
# `make image` builds the same image without a container engine
# (scripts/image.sh: the same rootfs.sh, umoci, skopeo) and `make release`
# puts it into dist/ with the chart; tests/packaging checks that its user,
# entrypoint, command, ports, stop signal and labels are the ones below.
#
#   docker build -t staffer:"$(cat VERSION)" \
#     --build-arg VERSION="$(cat VERSION)" \
#     --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
#   docker run --rm -p 9090:9090 staffer:"$(cat VERSION)" --prometheus http://prometheus:9090
#
# VERSION becomes `staffer version`, staffer_build_info and the image's
# org.opencontainers.image.version (the build context has no .git, so
# without it the version is the VERSION file's + "-dev").
# docs/install.md has the whole build, push and install path.
#
# No "syntax" directive: the builder's own Dockerfile frontend is used,
# so an air-gapped build pulls nothing but the base image.  Pin that by
# digest in CI for reproducible builds, e.g.
#   --build-arg DEBIAN_IMAGE=debian:bookworm-slim@sha256:<digest>
ARG DEBIAN_IMAGE=debian:bookworm-slim

# ---- build --------------------------------------------------------------
FROM ${DEBIAN_IMAGE} AS build

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Versions come from the Debian release the base image pins; pinning each
# package version would break on every Debian point release.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential \
      pkg-config \
      libgrpc-dev \
      protobuf-c-compiler \
      libprotobuf-c-dev \
      libcurl4-openssl-dev \
      libssl-dev \
      libcjson-dev \
      libyaml-dev \
      libmicrohttpd-dev \
      ca-certificates \
      tzdata \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# .dockerignore lets only what `make build/staffer` and rootfs.sh read in.
COPY . .
ARG VERSION=""
ARG REVISION=""
RUN make -j"$(nproc)" STAFFER_VERSION="${VERSION}" \
      STAFFER_REVISION="${REVISION}" build/staffer \
 && strip --strip-unneeded build/staffer \
 && build/staffer version \
 && scripts/rootfs.sh build/staffer /rootfs

# ---- runtime ------------------------------------------------------------
FROM scratch AS runtime

COPY --from=build /rootfs/ /

ARG VERSION=""
ARG REVISION=""
ARG CREATED=""
# No source label: the project has no public address yet (docker build
# --label org.opencontainers.image.source=URL adds yours).
LABEL org.opencontainers.image.title="staffer" \
      org.opencontainers.image.description="KEDA external scaler for GPU inference fleets (queueing-theory replica targets)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0"

# A numeric, non-root user (the "nonroot" uid of distroless images): the
# kubelet can check runAsNonRoot against a numeric USER.
USER 65532:65532

# 9090: gRPC, KEDA's external-scaler calls and grpc.health.v1 for the
# probes.  9091: /metrics and /healthz when --metrics-listen :9091 is given
# (the chart does).
EXPOSE 9090 9091

# staffer stops on SIGTERM: it stops accepting calls, lets running ones
# finish for --grace-seconds, and ends push streams with OK status.
STOPSIGNAL SIGTERM

# For docker run and compose; Kubernetes ignores it and uses the chart's
# gRPC probes.
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s \
  CMD ["/usr/local/bin/staffer", "health", "--timeout", "3", "127.0.0.1:9090"]

ENTRYPOINT ["/usr/local/bin/staffer", "serve"]
# The chart replaces these arguments; the default expects a mounted config.
CMD ["--config", "/etc/staffer/config.json"]
