# Reproducible, static, non-root image of the hook service.
#
# Base images are pinned by tag: the Go patch release of the build stage and
# the distroless static image of the runtime stage. Pinning them by digest as
# well (`image:tag@sha256:...`) makes a rebuild bit-for-bit repeatable; add the
# digests where the build can resolve them. With fixed inputs the binary is
# reproducible on its own: hack/build.sh builds it as make build does (no cgo,
# -trimpath, an empty build id, no VCS stamp, no timestamps), stamping the
# VERSION and COMMIT build arguments.
#
# A bare `docker build .` is stamped with the release of the VERSION file
# (the default of VERSION below is its copy, kept equal by make set-version
# and a test; the context has no .git to tell a development build). A
# development build says so with its version from git:
#   v=$(hack/version.sh)
#   docker build --build-arg VERSION=$v --build-arg COMMIT=$(git rev-parse HEAD) \
#     -t ghcr.io/c5c3/glance-hooks:$v .
# `make image` builds the same image without a container engine.
# Both give the same user, entrypoint, command, ports and labels (a test
# compares them), and both carry CA roots (distroless ships Debian's). The
# Helm chart runs this image as `glance-hooks serve ...` (ENTRYPOINT plus the
# container's args); the CMD is the chart's hooks container.

FROM --platform=$BUILDPLATFORM golang:1.26.8 AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=0.2.0
ARG COMMIT=unknown
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH VERSION=$VERSION COMMIT=$COMMIT \
    hack/build.sh /out/glance-hooks

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=0.2.0
ARG COMMIT=unknown
COPY --from=build /out/glance-hooks /glance-hooks
LABEL org.opencontainers.image.title="glance-hooks" \
      org.opencontainers.image.source="https://github.com/c5c3/glance-hooks" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$COMMIT"
# Numeric, so Kubernetes' runAsNonRoot can check it.
USER 65532:65532
# hooks, validate, and the metrics listener of each, as the chart has them.
EXPOSE 8443 9443 9090 9091
ENTRYPOINT ["/glance-hooks"]
CMD ["serve", "--routes=hooks", "--listen=:8443", "--tls-cert-file=/etc/glance-hooks/tls/tls.crt", "--tls-key-file=/etc/glance-hooks/tls/tls.key", "--auth-token-file=/etc/glance-hooks/hook-token/token", "--metrics-listen=:9090"]
