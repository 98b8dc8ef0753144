# syntax=docker/dockerfile:1
#
# staffer - KEDA external scaler.  Two stages on Debian 12 (bookworm):
#   build    compiles build/staffer with `make` from Debian's -dev packages;
#   runtime  has only the shared libraries the binary links against, CA
#            certificates for https backends, tzdata for the metadata
#            `timezone` of schedule windows, and the binary.
#
#   docker build -t staffer:dev .
#   docker run --rm -p 9090:9090 staffer:dev --prometheus http://prometheus:9090
#
# Pin the base image by digest in CI for reproducible builds, e.g.
#   --build-arg DEBIAN_IMAGE=debian:bookworm-slim@sha256:<digest>
# Both stages must use the same Debian release: the runtime library package
# names (libgrpc29, ...) are those of bookworm.
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
      libcjson-dev \
      libyaml-dev \
      libmicrohttpd-dev \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# .dockerignore lets only the Makefile and the sources in.
COPY . .
RUN make -j"$(nproc)" build/staffer \
 && strip --strip-unneeded build/staffer \
 && build/staffer version

# ---- runtime ------------------------------------------------------------
FROM ${DEBIAN_IMAGE} AS runtime

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Exactly the packages that own the binary's NEEDED libraries (libgrpc.so.29
# and libgpr.so.29: libgrpc29; libprotobuf-c.so.1; libcurl.so.4;
# libcjson.so.1; libyaml-0.so.2: libyaml-0-2, for `staffer lint`;
# libmicrohttpd.so.12: libmicrohttpd12, for /metrics), plus CA
# certificates; libc6 is in the base image.
# tests/packaging/run.sh checks this list against `readelf -d build/staffer`.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libgrpc29 \
      libprotobuf-c1 \
      libcurl4 \
      libcjson1 \
      libyaml-0-2 \
      libmicrohttpd12 \
      ca-certificates \
      tzdata \
 && rm -rf /var/lib/apt/lists/*

COPY --from=build /src/build/staffer /usr/local/bin/staffer

LABEL org.opencontainers.image.title="staffer" \
      org.opencontainers.image.description="KEDA external scaler for GPU inference fleets (queueing-theory replica targets)"

# A numeric, non-root user (the "nonroot" uid of distroless images): the
# kubelet can check runAsNonRoot against a numeric USER without /etc/passwd.
USER 65532:65532

# gRPC: KEDA's external-scaler calls and grpc.health.v1 for the probes.
EXPOSE 9090

# staffer stops on SIGTERM: it stops accepting calls, lets running ones
# finish for --grace-seconds, and ends push streams with OK status.
STOPSIGNAL SIGTERM

ENTRYPOINT ["/usr/local/bin/staffer", "serve"]
# The chart replaces these arguments; the default expects a mounted config.
CMD ["--config", "/etc/staffer/config.json"]
