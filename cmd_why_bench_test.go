package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkWhy times `skillet why` over a 100-turn session with the real
// corpus's skills, beside a floor measured in the same run: reading the
// journal's bytes, which any answer about the session must at least do.
// ratio_to_floor is why's time over the floor's.
func BenchmarkWhy(b *testing.B) {
	rel := sharedDir("real-corpus/skills")
	if rel == "" {
		b.Skip("the real corpus is not in a shared/ folder above the repository")
	}
	corpus, err := filepath.Abs(rel)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("writing a 100-turn session over %s", corpus)
	tmp := b.TempDir()
	for k, v := range map[string]string{"HOME": tmp, "XDG_CACHE_HOME": filepath.Join(tmp, "cache"), "XDG_STATE_HOME": filepath.Join(tmp, "state"),
		"XDG_CONFIG_HOME": filepath.Join(tmp, "config"), "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OPENAI_MODEL": ""} {
		b.Setenv(k, v)
	}
	b.Chdir(tmp)
	ents, err := os.ReadDir(corpus)
	if err != nil {
		b.Fatal(err)
	}
	var msgs strings.Builder
	for i := 0; i < 100; i++ {
		// a message about one skill in every eleven, so the ranks move
		name := ents[(i*11)%len(ents)].Name()
		msgs.WriteString("help me with " + strings.ReplaceAll(name, "-", " ") + "\n")
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"run", "--skills", corpus, "-"}, strings.NewReader(msgs.String()), &out, &errOut); code != 0 {
		b.Fatalf("run: exit %d\n%s", code, errOut.String())
	}
	sessions, _ := os.ReadDir(filepath.Join(tmp, "state", "skillet", "sessions"))
	if len(sessions) != 1 {
		b.Fatalf("want one session, got %d", len(sessions))
	}
	id := sessions[0].Name()
	journal := filepath.Join(tmp, "state", "skillet", "sessions", id, "journal.jsonl")
	b.Logf("session %s written", id)

	target := ents[len(ents)/2].Name()
	var whyNs, floorNs time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t0 := time.Now()
		if _, err := os.ReadFile(journal); err != nil {
			b.Fatal(err)
		}
		floorNs += time.Since(t0)
		b.StartTimer()
		t1 := time.Now()
		if code := run([]string{"why", target, "--session", id}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("why: exit %d", code)
		}
		whyNs += time.Since(t1)
	}
	b.ReportMetric(float64(whyNs.Milliseconds())/float64(b.N), "why_ms")
	b.ReportMetric(float64(floorNs.Microseconds())/1e3/float64(b.N), "floor_ms")
	b.ReportMetric(float64(whyNs)/float64(floorNs), "ratio_to_floor")
}
