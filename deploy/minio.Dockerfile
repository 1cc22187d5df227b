# syntax=docker/dockerfile:1
# MinIO for the compose file, built from source at the release the tests run against
# (infra/minio.sh's MINIO_VERSION): MinIO publishes no container images of current releases.
FROM golang:1.26-bookworm AS build
ARG MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
RUN GOBIN=/out GOFLAGS=-buildvcs=false go install "github.com/minio/minio@${MINIO_VERSION}"

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --uid 1000 --create-home minio && mkdir -p /data && chown minio /data
COPY --from=build /out/minio /usr/local/bin/minio
USER 1000:1000
EXPOSE 9000
ENTRYPOINT ["minio"]
CMD ["server", "/data", "--address", ":9000"]
