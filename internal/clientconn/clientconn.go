// Package clientconn holds the transport settings every Go gRPC client of
// errsvc dials with: the Go SDK (clients/go) and the load generator
// (bench/cmd/loadgen), so the benchmarks measure what a Go caller gets.
package clientconn

import "google.golang.org/grpc"

// The static flow-control windows: as large as an answer gets in practice
// (a batch of hundreds of items), so no answer waits on a window update.
const (
	streamWindow = 1 << 20
	connWindow   = 4 << 20
)

// Windows are static HTTP/2 flow-control windows. With grpc-go's default
// (64 KiB, grown by BDP estimation) a client pings the server after almost
// every answer when its calls are sparse, and the server writes the ACK:
// at one caller on loopback, 1.66 writes and 2.49 reads per Translate on
// the server's side against 1.12 and 2.12 with these windows, which turn
// the estimation off. errsvc's messages are small; the estimation only
// pays on links whose bandwidth-delay product outgrows a 1 MiB window.
func Windows() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithInitialWindowSize(streamWindow), grpc.WithInitialConnWindowSize(connWindow)}
}
