# One image for the operator and the runtime: `agentry operator` and `agentry serve`.
# Build: docker build -t agentry:dev .   (needs a container engine; not available in CI here)
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath \
    -ldflags "-s -w -X github.com/agentry-dev/agentry/internal/cli.Version=${VERSION}" \
    -o /out/agentry .

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/agentry /usr/local/bin/agentry
USER 65532:65532
EXPOSE 4111
ENTRYPOINT ["/usr/local/bin/agentry"]
CMD ["serve", "--config", "/etc/agentry/config"]
