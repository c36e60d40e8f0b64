# Reproducible, static, non-root image of the hook service.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY hooks ./hooks
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -buildid=" -o /out/glance-hooks ./cmd/glance-hooks

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/glance-hooks /glance-hooks
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/glance-hooks"]
CMD ["serve", "--listen", ":8080"]
