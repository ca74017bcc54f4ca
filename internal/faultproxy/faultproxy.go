// Package faultproxy is a TCP proxy for fault tests: put it between a
// program and its PostgreSQL or Redis, and cut the link, black-hole it or
// restore it while the program runs.
//
//   - Cut closes every open connection with a reset (RST) and resets every
//     new one at once, as a dead host or a firewall rejecting would: the
//     program's calls fail fast.
//   - Blackhole keeps the connections open but forwards nothing, and holds
//     new ones without connecting them, as a partition that drops packets
//     would: the program's reads block. Bytes read meanwhile are held, not
//     dropped, and delivered on Restore, as TCP retransmission delivers them
//     once a short partition heals.
//   - Restore forwards again; new connections reach the target.
//
// It is a test tool with bounds: it listens on 127.0.0.1 only, forwards
// only to a loopback target, holds at most Options.MaxConns connections,
// and stops by itself when the context given to Start ends (or on Close).
package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Mode is the state of the link.
type Mode int

const (
	Up        Mode = iota // forwarding
	Cut                   // connections reset, new ones refused
	Blackhole             // connections held, nothing forwarded
)

func (m Mode) String() string {
	switch m {
	case Up:
		return "up"
	case Cut:
		return "cut"
	case Blackhole:
		return "blackhole"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Options bound a Proxy.
type Options struct {
	// MaxConns is how many connections may be open at once (default 256);
	// more are reset.
	MaxConns int
	// DialTimeout bounds connecting to the target (default 5s).
	DialTimeout time.Duration
}

// Stats counts what the proxy did.
type Stats struct {
	Accepted int // connections accepted
	Reset    int // connections reset: by Cut, while cut, or over MaxConns
	Open     int // connections open now
}

// Proxy forwards connections from Addr to the target.
type Proxy struct {
	ln     net.Listener
	target string
	opts   Options
	stop   context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	mode   Mode
	resume chan struct{} // closed when a black hole ends
	links  map[*link]struct{}
	closed bool
	stats  Stats
}

// link is one proxied connection: the client's side and the target's
// (nil until connected).
type link struct {
	client net.Conn
	server net.Conn
	gone   chan struct{} // closed when the link is torn down
	once   sync.Once
}

// Start listens on 127.0.0.1 (a free port) and forwards to target, a
// host:port on loopback. The proxy stops when ctx ends or Close is called.
func Start(ctx context.Context, target string, opts Options) (*Proxy, error) {
	host, _, err := net.SplitHostPort(target)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: target %q: %w", target, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("faultproxy: target %q is not on loopback; this proxy is for local tests only", target)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 256
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 5 * time.Second
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	ctx, stop := context.WithCancel(ctx)
	p := &Proxy{ln: ln, target: target, opts: opts, stop: stop, links: map[*link]struct{}{}}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		<-ctx.Done()
		p.shutdown()
	}()
	go func() {
		defer p.wg.Done()
		p.accept(ctx)
	}()
	return p, nil
}

// Addr is the address to connect to instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is the address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Mode returns the state of the link.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Open = len(p.links)
	return s
}

// Cut resets every open connection and every new one until Restore. Bytes
// held by a black hole are dropped with their connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.setMode(Cut)
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
		delete(p.links, l)
	}
	p.stats.Reset += len(links)
	p.mu.Unlock()
	for _, l := range links {
		l.teardown(true)
	}
}

// Blackhole stops forwarding until Restore or Cut: open connections stay
// open and new ones are held without reaching the target.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setMode(Blackhole)
}

// Restore forwards again; what a black hole held is delivered.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setMode(Up)
}

// setMode switches modes; p.mu is held.
func (p *Proxy) setMode(m Mode) {
	if p.mode == Blackhole && m != Blackhole {
		close(p.resume)
	}
	if p.mode != Blackhole && m == Blackhole {
		p.resume = make(chan struct{})
	}
	p.mode = m
}

// Close stops the proxy: no more connections, every open one closed. It
// waits for the proxy's goroutines and is safe to call more than once.
func (p *Proxy) Close() error {
	p.stop()
	p.wg.Wait()
	return nil
}

func (p *Proxy) shutdown() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	if p.mode == Blackhole {
		close(p.resume)
		p.mode = Up
	}
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
		delete(p.links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.teardown(false)
	}
}

func (p *Proxy) accept(ctx context.Context) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// A transient accept error (too many files): back off a little.
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		l := &link{client: c, gone: make(chan struct{})}
		p.mu.Lock()
		p.stats.Accepted++
		refuse := p.closed || p.mode == Cut || len(p.links) >= p.opts.MaxConns
		if refuse {
			p.stats.Reset++
		} else {
			p.links[l] = struct{}{}
		}
		p.mu.Unlock()
		if refuse {
			l.teardown(true)
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.serve(ctx, l)
		}()
	}
}

// serve connects l to the target, once the link lets it, and copies both
// ways until either side closes or the link is torn down.
func (p *Proxy) serve(ctx context.Context, l *link) {
	defer p.forget(l)
	if !p.pass(l) {
		return
	}
	d := net.Dialer{Timeout: p.opts.DialTimeout}
	s, err := d.DialContext(ctx, "tcp", p.target)
	if err != nil {
		l.teardown(true)
		return
	}
	p.mu.Lock()
	_, live := p.links[l]
	if live {
		l.server = s
	}
	p.mu.Unlock()
	if !live { // cut while dialling
		resetConn(s)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.pipe(l, l.client, s) })
	wg.Go(func() { p.pipe(l, s, l.client) })
	wg.Wait()
}

// pipe copies src to dst, holding each chunk while the link is black-holed.
// When src ends, the whole link is closed: these are request/response
// protocols, neither side half-closes on purpose.
func (p *Proxy) pipe(l *link, src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.pass(l) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				l.teardown(false)
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				// Propagate a reset as a reset.
				l.teardown(true)
				return
			}
			// The end of a stream is forwarded like data: not through a
			// black hole.
			if p.pass(l) {
				l.teardown(false)
			}
			return
		}
	}
}

// pass waits while the link is black-holed and reports whether l may
// forward (false once l is torn down).
func (p *Proxy) pass(l *link) bool {
	for {
		p.mu.Lock()
		_, live := p.links[l]
		mode, resume := p.mode, p.resume
		p.mu.Unlock()
		if !live {
			return false
		}
		if mode != Blackhole {
			return true
		}
		select {
		case <-resume:
		case <-l.gone:
			return false
		}
	}
}

func (p *Proxy) forget(l *link) {
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
	l.teardown(false)
}

// teardown closes both sides of l, with a reset when hard.
func (l *link) teardown(hard bool) {
	l.once.Do(func() {
		close(l.gone)
		for _, c := range []net.Conn{l.client, l.server} {
			if c == nil {
				continue
			}
			if hard {
				resetConn(c)
			} else {
				c.Close()
			}
		}
	})
}

// resetConn closes c with an RST instead of a FIN, so the peer's next read
// or write fails at once with "connection reset by peer".
func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}
