# Two images from one build, both static, non-root, distroless:
#   runtime  the agent pods: agentry built with -tags agentry_runtime,grpcnotrace, which serves the config
#            the operator renders (`agentry serve`) and links nothing else: about half the size
#            and resident memory of the full binary (docs/runtime-footprint.md).
#   agentry  (the default target) everything else: `agentry operator`, `agentry chat`, `agentry
#            serve` and `agentry dev` for hand-written manifests.
# `make images` builds the same two images without a container engine (hack/images,
# hack/images/imagebuild): that is the build `make test` runs on a real kubelet. This file is for
# those who build with Docker or Podman (not run in CI here: no engine, no base image pulls):
#   docker build --build-arg VERSION=0.1.0 -t ghcr.io/agentry-dev/agentry:0.1.0 .
#   docker build --build-arg VERSION=0.1.0 --target runtime -t ghcr.io/agentry-dev/agentry-runtime:0.1.0 .
# The web app (ui/apps/web) that `agentry chat` and `agentry dev` serve at /, embedded in the
# binary: built first, from the workspace's lockfile.
FROM node:22-bookworm AS web
WORKDIR /src/ui
COPY ui/ ./
# npm install when npm ci refuses the lock (it lacks some platforms' optional packages; see hack/test.sh)
RUN (npm ci --no-audit --no-fund || npm install --no-audit --no-fund) && npm run build:web

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=web /src/ui/apps/web/embed/app ui/apps/web/embed/app
ARG VERSION=dev
ENV CGO_ENABLED=0 GOOS=linux
RUN go build -trimpath -ldflags "-s -w -X github.com/agentry-dev/agentry/cmd.Version=${VERSION}" \
    -o /out/agentry .
RUN go build -trimpath -tags agentry_runtime,grpcnotrace -ldflags "-s -w -X github.com/agentry-dev/agentry/cmd.Version=${VERSION}" \
    -o /out/agentry-runtime .

FROM gcr.io/distroless/static-debian12:nonroot AS runtime
COPY --from=build /out/agentry-runtime /usr/local/bin/agentry
USER 65532:65532
EXPOSE 4111
ENTRYPOINT ["/usr/local/bin/agentry"]
CMD ["serve", "--config", "/etc/agentry/config", "--prevalidated"]

FROM gcr.io/distroless/static-debian12:nonroot AS agentry
COPY --from=build /out/agentry /usr/local/bin/agentry
USER 65532:65532
EXPOSE 4111
ENTRYPOINT ["/usr/local/bin/agentry"]
CMD ["serve", "--config", "/etc/agentry/config"]
