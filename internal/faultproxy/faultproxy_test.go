package faultproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// echo starts a line echo server on loopback; it stops with the test.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c) // echoes until the peer closes: its error is the end of the echo
			}()
		}
	}()
	return ln.Addr().String()
}

func start(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := Start(t.Context(), target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// roundTrip writes a line and reads it back within d.
func roundTrip(c net.Conn, line string, d time.Duration) (string, error) {
	if err := c.SetDeadline(time.Now().Add(d)); err != nil {
		return "", err
	}
	defer func() { _ = c.SetDeadline(time.Time{}) }() // the next caller sets its own
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSuffix(got, "\n"), err
}

// send writes s to c.
func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatalf("writing %q: %v", s, err)
	}
}

// readDeadline makes reads on c time out after d.
func readDeadline(t *testing.T, c net.Conn, d time.Duration) {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(d)); err != nil {
		t.Fatal(err)
	}
}

func dial(t *testing.T, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustEcho(t *testing.T, c net.Conn, line string) {
	t.Helper()
	got, err := roundTrip(c, line, 2*time.Second)
	if err != nil || got != line {
		t.Fatalf("round trip of %q: got %q, %v", line, got, err)
	}
}

func TestForwards(t *testing.T) {
	p := start(t, echo(t))
	if host, _, _ := net.SplitHostPort(p.Addr()); host != "127.0.0.1" {
		t.Fatalf("listens on %s, want 127.0.0.1", p.Addr())
	}
	c := dial(t, p)
	for _, line := range []string{"hello", strings.Repeat("x", 100_000)} {
		mustEcho(t, c, line)
	}
	if s := p.Stats(); s.Accepted != 1 || s.Open != 1 || s.Reset != 0 {
		t.Fatalf("stats %+v, want 1 accepted and open", s)
	}
}

// TestCut: an open connection fails at once (reset, not a hang), new ones
// are reset while cut, and after Restore new connections work.
func TestCut(t *testing.T) {
	p := start(t, echo(t))
	c := dial(t, p)
	mustEcho(t, c, "before")
	p.Cut()
	if p.Mode() != Cut {
		t.Fatalf("mode %v", p.Mode())
	}
	began := time.Now()
	if got, err := roundTrip(c, "during", 2*time.Second); err == nil || isTimeout(err) {
		t.Fatalf("open connection after Cut: got %q, %v; want a reset or EOF", got, err)
	}
	if err := refused(p); err != nil {
		t.Fatalf("new connection while cut: %v", err)
	}
	if d := time.Since(began); d > time.Second {
		t.Fatalf("failing took %v; a cut must fail fast", d)
	}
	p.Restore()
	mustEcho(t, dial(t, p), "after")
	if s := p.Stats(); s.Reset != 2 || s.Accepted != 3 {
		t.Fatalf("stats %+v, want 3 accepted, 2 reset", s)
	}
}

// TestBlackhole: reads block while black-holed, on open and new
// connections alike; after Restore what was sent arrives.
func TestBlackhole(t *testing.T) {
	p := start(t, echo(t))
	c := dial(t, p)
	mustEcho(t, c, "before")
	p.Blackhole()
	r := bufio.NewReader(c)
	send(t, c, "held\n")
	readDeadline(t, c, 200*time.Millisecond)
	if got, err := r.ReadString('\n'); !isTimeout(err) {
		t.Fatalf("read through a black hole: got %q, %v; want it to block", got, err)
	}
	n := dial(t, p) // accepted, not connected to the target yet
	nr := bufio.NewReader(n)
	send(t, n, "new\n")
	readDeadline(t, n, 200*time.Millisecond)
	if got, err := nr.ReadString('\n'); !isTimeout(err) {
		t.Fatalf("read on a new connection in a black hole: got %q, %v; want it to block", got, err)
	}
	p.Restore()
	for _, tc := range []struct {
		r    *bufio.Reader
		c    net.Conn
		want string
	}{{r, c, "held\n"}, {nr, n, "new\n"}} {
		readDeadline(t, tc.c, 2*time.Second)
		if got, err := tc.r.ReadString('\n'); err != nil || got != tc.want {
			t.Fatalf("after Restore: got %q, %v; want %q", got, err, tc.want)
		}
	}
}

// TestCutEndsBlackhole: a cut during a black hole drops what it held.
func TestCutEndsBlackhole(t *testing.T) {
	p := start(t, echo(t))
	c := dial(t, p)
	mustEcho(t, c, "before")
	p.Blackhole()
	send(t, c, "dropped\n")
	time.Sleep(50 * time.Millisecond)
	p.Cut()
	readDeadline(t, c, 2*time.Second)
	if got, err := bufio.NewReader(c).ReadString('\n'); err == nil || isTimeout(err) {
		t.Fatalf("after the cut: got %q, %v; want a reset or EOF", got, err)
	}
	p.Restore()
	mustEcho(t, dial(t, p), "after")
}

func TestMaxConns(t *testing.T) {
	target := echo(t)
	p, err := Start(t.Context(), target, Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, b := dial(t, p), dial(t, p)
	mustEcho(t, a, "a")
	mustEcho(t, b, "b")
	if err := refused(p); err != nil {
		t.Fatalf("third connection over MaxConns 2: %v", err)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, target := range []string{"192.0.2.1:5432", "example.com:6379", "nohostport"} {
		if p, err := Start(t.Context(), target, Options{}); err == nil {
			p.Close()
			t.Errorf("Start(%q) accepted a target off loopback", target)
		}
	}
	for _, target := range []string{"127.0.0.1:1", "[::1]:1", "localhost:1"} {
		p, err := Start(t.Context(), target, Options{})
		if err != nil {
			t.Errorf("Start(%q): %v", target, err)
			continue
		}
		p.Close()
	}
}

// TestStopsByItself: when its context ends, the proxy closes its listener
// and every connection, black-holed ones included, and its goroutines end.
func TestStopsByItself(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, echo(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p)
	mustEcho(t, c, "x")
	p.Blackhole()
	held := dial(t, p)
	send(t, held, "held\n")
	cancel()
	p.Close() // waits for the goroutines
	for _, conn := range []net.Conn{c, held} {
		readDeadline(t, conn, 2*time.Second)
		if _, err := conn.Read(make([]byte, 1)); err == nil || isTimeout(err) {
			t.Fatalf("connection after the proxy stopped: %v; want it closed", err)
		}
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		t.Fatal("the proxy still accepts connections after it stopped")
	}
	// The echo server's goroutines end when their peers close; give them a
	// moment, then nothing of the proxy's may be left.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+1 {
		t.Fatalf("%d goroutines after the proxy stopped, %d before", n, before)
	}
}

// refused checks that a new connection is reset: at connect already (the
// reset can beat the handshake's end on loopback) or at its first round
// trip.
func refused(p *Proxy) error {
	c, err := net.DialTimeout("tcp", p.Addr(), time.Second)
	if err != nil {
		return nil
	}
	defer c.Close()
	if got, err := roundTrip(c, "refused?", 2*time.Second); err == nil || isTimeout(err) {
		return fmt.Errorf("got %q, %v; want a reset or EOF", got, err) //nolint:errorlint // err may be nil: %w would print %!w(<nil>)
	}
	return nil
}

func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}
