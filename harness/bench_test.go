package harness

import (
	"fmt"
	"runtime"
	"skillet/harness/event"
	"skillet/harness/rank"
	"skillet/harness/rulebook"
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
	for i := 0; s.st.Msgs.Len() < msgs; i++ {
		turn := i + 1
		s.st.Apply(&event.TurnStart{Header: event.Header{Turn: turn}, Text: fmt.Sprintf("please review the %s for account %d", words[i%len(words)], i)})
		id := fmt.Sprintf("t%d", i)
		s.st.Apply(&event.Assistant{Header: event.Header{Turn: turn}, Call: 1, ToolCalls: []event.ToolCallRecord{{ID: id, Name: "lookup", Arguments: `{"q":"x"}`}}})
		s.st.Apply(&event.ToolResult{Header: event.Header{Turn: turn}, ToolCallID: id, Name: "lookup", Content: strings.Repeat("result data ", 20)})
		s.st.Apply(&event.Assistant{Header: event.Header{Turn: turn}, Call: 2, Text: "Here is what I found."})
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
	c := rulebook.ComposeNext(s.st, s.w.World)
	if len(c.Offered) != 30 || len(c.Request.Messages) > 61 || !strings.Contains(c.Instructions, "<current_context>") {
		b.Fatalf("unexpected composition: %d offered, %d messages", len(c.Offered), len(c.Request.Messages))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rulebook.ComposeNext(s.st, s.w.World)
	}
}

// BenchmarkComposeAndEncode adds encoding the request body, which every
// model call also does.
func BenchmarkComposeAndEncode(b *testing.B) {
	composeAndEncode(b, benchSession(b, 1000, 10000))
}

// composeAndEncode composes and encodes s's next request b.N times.
func composeAndEncode(b *testing.B, s *Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := rulebook.ComposeNext(s.st, s.w.World)
		if _, err := c.Request.Body(); err != nil {
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

// BenchmarkSnapshotLocked measures how long a snapshot holds the
// session's lock: composing and copying, not counting.
func BenchmarkSnapshotLocked(b *testing.B) {
	s := benchSession(b, 1000, 10000)
	s.Snapshot()
	s.mu.Lock()
	defer s.mu.Unlock()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.frame().snapLocked()
	}
}

// BenchmarkStep measures one step at 1,000 skills and 10,000 messages:
// take the lock, run a rule of the rule book, apply its events, release,
// notify (no journal).
func BenchmarkStep(b *testing.B) {
	s := benchSession(b, 1000, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.step(func(st *rulebook.State, _ *rulebook.World) []event.Event {
			return rulebook.SetLimit(st, "max_tool_calls", st.Settings, rulebook.Lifecycle(st))
		})
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
		s.w.Rank.(*rank.Ranker).Forget() // a new message: rank again
		rulebook.ComposeNext(s.st, s.w.World)
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
			composeAndEncode(b, s)
		})
	}
}

// BenchmarkMemoryGrowth drives one journaled session to 10,000 messages
// and reports the live heap at 2,000 and at 10,000 messages: memory holds
// the window, the latest entries and calls, and older entries and turn
// records sealed in compressed pages, not every request.
// Run it with -benchtime 1x.
func BenchmarkMemoryGrowth(b *testing.B) {
	for i := 0; i < b.N; i++ {
		w := &workspace{t: b, root: b.TempDir()}
		basicSkills(w)
		f := w.open("", nil)
		heap := func() float64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return float64(m.HeapInuse) / (1 << 20)
		}
		var at2k float64
		for turn := 0; ; turn++ {
			f.s.mu.Lock()
			n := f.s.st.Msgs.Len()
			f.s.mu.Unlock()
			if n >= 2000 && at2k == 0 {
				at2k = heap()
			}
			if n >= 10000 {
				break
			}
			f.turn(fmt.Sprintf("review account %d for anomalies", turn), call("alpha_tool", fmt.Sprintf(`{"q":"%d"}`, turn)), say(strings.Repeat("The account looks fine. ", 20)))
			// the test's model and recorder keep everything: not the session's memory
			f.model.ForgetRequests()
			f.rec.mu.Lock()
			f.rec.events = nil
			f.rec.mu.Unlock()
		}
		at10k := heap()
		b.ReportMetric(at2k, "MiB@2k")
		b.ReportMetric(at10k, "MiB@10k")
		b.ReportMetric(at10k/at2k, "growth")
		f.s.Close()
	}
}

// BenchmarkReopen10k reopens a journal of 10,000 messages: read, repair,
// fold and sync.
func BenchmarkReopen10k(b *testing.B) {
	w := &workspace{t: b, root: b.TempDir()}
	basicSkills(w)
	f := w.open("", nil)
	for turn := 0; f.s.st.Msgs.Len() < 10000; turn++ {
		f.turn(fmt.Sprintf("review account %d for anomalies", turn), call("alpha_tool", fmt.Sprintf(`{"q":"%d"}`, turn)), say(strings.Repeat("The account looks fine. ", 20)))
	}
	dir := f.s.Dir()
	f.s.Close()
	cat := w.catalog()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(dir, Options{Catalog: cat, Model: &scripted{}})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
