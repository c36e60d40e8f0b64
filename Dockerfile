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
# `make image` builds the same image without a container engine; with one:
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg COMMIT=$(git rev-parse HEAD) -t ghcr.io/c5c3/glance-hooks:<appVersion> .
# The Helm chart runs this image as `glance-hooks serve ...` (ENTRYPOINT plus
# the container's args).

FROM --platform=$BUILDPLATFORM golang:1.26.8 AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=dev
ARG COMMIT=unknown
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH VERSION=$VERSION COMMIT=$COMMIT \
    hack/build.sh /out/glance-hooks

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/glance-hooks /glance-hooks
# Numeric, so Kubernetes' runAsNonRoot can check it.
USER 65532:65532
EXPOSE 8080 8443
ENTRYPOINT ["/glance-hooks"]
CMD ["serve", "--listen=:8080"]
