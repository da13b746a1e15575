//go:build linux

package llm

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"
)

// fullListener is a loopback port whose accept queue is full, so that a new
// connection's handshake never completes: a connect that hangs, without
// needing any network.
func fullListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skipf("socket: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Skipf("bind: %v", err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Skipf("listen: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Skipf("getsockname: %v", err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for range 16 { // fill the queue until a connect hangs
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr
		}
		t.Cleanup(func() { conn.Close() })
	}
	t.Skip("could not fill the accept queue")
	return ""
}

func TestConnectTimeout(t *testing.T) {
	addr := fullListener(t)
	c, err := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: testKey, ConnectTimeout: 50 * time.Millisecond, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), testRequest(true), nil)
	wantTimeout(t, err, TimeoutConnect)
}
