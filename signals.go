package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signalNames are the signals that end a run early, as the messages name
// them.
var signalNames = map[os.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// signalCatcher turns the first of some signals into a cancelled context,
// so that the running turn ends the way a user's cancel ends it: tools and
// MCP servers stopped, the turn closed in the journal. A second SIGINT or
// SIGTERM takes its default action, so a stuck shutdown can still be
// ended; further hangups are dropped.
type signalCatcher struct {
	ch      chan os.Signal
	hups    chan os.Signal // hangups after the first signal, dropped
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex // guards caught and stopped
	caught  os.Signal
	stopped bool
}

// catchSignals starts catching sigs. A signal the process started with
// ignored (nohup, a background job) stays ignored.
func catchSignals(parent context.Context, sigs ...os.Signal) (context.Context, *signalCatcher) {
	ctx, cancel := context.WithCancel(parent)
	c := &signalCatcher{ch: make(chan os.Signal, 1), hups: make(chan os.Signal, 1), done: make(chan struct{})}
	var watched []os.Signal
	for _, s := range sigs {
		if !signal.Ignored(s) {
			watched = append(watched, s)
		}
	}
	if len(watched) > 0 {
		signal.Notify(c.ch, watched...)
	}
	go func() {
		defer cancel()
		select {
		case s := <-c.ch:
			c.mu.Lock()
			c.caught = s
			// A hangup can come more than once while skillet shuts down (a
			// closed terminal, a shell passing it on): only SIGINT or
			// SIGTERM again may cut the shutdown short. Hangups are caught
			// on their own first, so that none meets the default action
			// in between; not ignored, which children would inherit.
			if !c.stopped && !signal.Ignored(syscall.SIGHUP) {
				signal.Notify(c.hups, syscall.SIGHUP)
			}
			c.mu.Unlock()
			signal.Stop(c.ch)
			go func() {
				for {
					select {
					case <-c.hups:
					case <-c.done:
						return
					}
				}
			}()
		case <-c.done:
		}
	}()
	return ctx, c
}

// catchStops catches the signals that end a command early: SIGINT,
// SIGTERM and SIGHUP.
func catchStops(parent context.Context) (context.Context, *signalCatcher) {
	return catchSignals(parent, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
}

// signal is the signal caught, nil when none was.
func (c *signalCatcher) signal() os.Signal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caught
}

// exitCode is the shell's status for a process ended by the caught signal
// (128 + its number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), or
// code when none was caught.
func (c *signalCatcher) exitCode(code int) int {
	if s, ok := c.signal().(syscall.Signal); ok {
		return 128 + int(s)
	}
	return code
}

// cancelled says why a run was cancelled.
func (c *signalCatcher) cancelled() string {
	if name := signalNames[c.signal()]; name != "" {
		return "cancelled by " + name
	}
	return "cancelled"
}

// signalBy is " by NAME" for the signal caught, "" when none was.
func signalBy(c *signalCatcher) string {
	if name := signalNames[c.signal()]; name != "" {
		return " by " + name
	}
	return ""
}

// stop stops catching.
func (c *signalCatcher) stop() {
	c.once.Do(func() {
		c.mu.Lock()
		c.stopped = true
		signal.Stop(c.ch)
		signal.Stop(c.hups)
		c.mu.Unlock()
		close(c.done)
	})
}
