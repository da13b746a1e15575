package harness

import (
	"fmt"
	"strings"
	"testing"

	"skillet/harness/profile"
)

// benchSession builds a session with n enabled skills, 3 of them loaded,
// and a transcript of msgs chat messages.
func benchSession(b *testing.B, n, msgs int) *Session {
	b.Helper()
	return benchSessionUnder(b, "", n, msgs)
}

// benchSessionUnder is benchSession under a profile ("" for skillet).
func benchSessionUnder(b *testing.B, prof string, n, msgs int) *Session {
	b.Helper()
	w := &workspace{t: &testing.T{}, root: b.TempDir()}
	words := []string{"account", "review", "release", "incident", "query", "report", "billing", "refund", "deploy", "audit", "invoice", "latency"}
	for i := 0; i < n; i++ {
		desc := fmt.Sprintf("Skill %d handles %s and %s work. Use when the user asks about %s.", i, words[i%len(words)], words[(i/3)%len(words)], words[(i/7)%len(words)])
		w.skill(fmt.Sprintf("skill-%04d", i), desc, strings.Repeat("Follow these steps carefully.\n", 40), "")
	}
	f := w.open("[session]\nlist_size = 30\n", func(o *Options) { o.Dir, o.Profile = "", prof })
	s := f.s
	for _, name := range []string{"skill-0001", "skill-0002", "skill-0003"} {
		if err := s.LoadSkill(name); err != nil {
			b.Fatal(err)
		}
	}
	s.mu.Lock()
	for i := 0; len(s.st.Msgs) < msgs; i++ {
		turn := i + 1
		s.st.Apply(&TurnStart{Header: Header{Turn: turn}, Text: fmt.Sprintf("please review the %s for account %d", words[i%len(words)], i)})
		id := fmt.Sprintf("t%d", i)
		s.st.Apply(&Assistant{Header: Header{Turn: turn}, Call: 1, ToolCalls: []ToolCallRecord{{ID: id, Name: "lookup", Arguments: `{"q":"x"}`}}})
		s.st.Apply(&ToolResult{Header: Header{Turn: turn}, ToolCallID: id, Name: "lookup", Content: strings.Repeat("result data ", 20)})
		s.st.Apply(&Assistant{Header: Header{Turn: turn}, Call: 2, Text: "Here is what I found."})
	}
	s.mu.Unlock()
	return s
}

// BenchmarkCompose measures composing one request (instructions, ranked
// list, <current_context>, tools and window) with 1,000 enabled skills, 3
// loaded and a 10,000-message transcript.
func BenchmarkCompose(b *testing.B) {
	s := benchSession(b, 1000, 10000)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.compose()
	if len(c.offered) != 30 || len(c.req.Messages) > 61 || !strings.Contains(c.instructions, "<current_context>") {
		b.Fatalf("unexpected composition: %d offered, %d messages", len(c.offered), len(c.req.Messages))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.compose()
	}
}

// BenchmarkComposeAndEncode adds encoding the request body, which every
// model call also does.
func BenchmarkComposeAndEncode(b *testing.B) {
	s := benchSession(b, 1000, 10000)
	s.mu.Lock()
	defer s.mu.Unlock()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := s.compose()
		if _, err := c.req.Body(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshot measures what the UI asks for after each event.
func BenchmarkSnapshot(b *testing.B) {
	s := benchSession(b, 1000, 10000)
	s.Snapshot() // counts tokens once; later snapshots reuse them
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Snapshot()
	}
}

// BenchmarkCompose10k is BenchmarkCompose at 10,000 enabled skills, each
// compose after a new user message (the list is ranked again).
func BenchmarkCompose10k(b *testing.B) {
	s := benchSession(b, 10000, 10000)
	s.mu.Lock()
	defer s.mu.Unlock()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.ranker.last = nil // a new message: rank again
		s.compose()
	}
}

// BenchmarkComposeProfile composes the same session under every profile:
// 1,000 enabled skills and a 10,000-message transcript, which profiles
// without the lifecycle rules send whole. Compare each to skillet's line
// of the same run; claude-code+lifecycle sends only the window.
func BenchmarkComposeProfile(b *testing.B) {
	for _, name := range append(profile.Names(), "claude-code+lifecycle") {
		b.Run(name, func(b *testing.B) {
			prof, lifecycle := strings.CutSuffix(name, "+lifecycle")
			s := benchSessionUnder(b, prof, 1000, 10000)
			if lifecycle {
				if err := s.Set("lifecycle", "true"); err != nil {
					b.Fatal(err)
				}
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := s.compose()
				if _, err := c.req.Body(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
