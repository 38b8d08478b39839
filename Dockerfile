# Taasky: build with the Go toolchain, run as a static binary on distroless, not as root.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/taasky ./cmd/taasky

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/taasky /usr/local/bin/taasky
USER nonroot:nonroot
ENV LISTEN_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/taasky"]
CMD ["serve"]
