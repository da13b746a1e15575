package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"skillet/harness/cassette"
)

// BenchmarkReplaySession replays a recorded session of 100 model calls at
// --pace 0 through the whole of `skillet run` (config, skills, engine,
// client, player). Its "demo" sub-benchmark, the floor, runs the same
// messages live against the demo model; "replay" reports its time per
// session and as a ratio to that floor, measured in the same run.
func BenchmarkReplaySession(b *testing.B) {
	tmp := b.TempDir()
	b.Setenv("HOME", tmp)
	b.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	b.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	b.Setenv("OPENAI_API_KEY", "")
	b.Setenv("OPENAI_BASE_URL", "")
	b.Chdir(tmp)
	var msgs []string
	for i := range 50 {
		msgs = append(msgs, fmt.Sprintf("review account 48%02d", i))
	}
	flags := []string{"run", "--set", "max_transcript_messages=400"}
	rec := filepath.Join(tmp, "rec.jsonl")
	if code := run(append(append(flags, "--offline", "--record", rec), msgs...), nil, discard{}, discard{}); code != 0 {
		b.Fatalf("record: exit %d", code)
	}
	c, err := openCassetteB(rec)
	if err != nil {
		b.Fatal(err)
	}
	calls := len(c.Calls)
	var floor float64
	b.Run("demo", func(b *testing.B) {
		for b.Loop() {
			if code := run(append(append(flags, "--offline"), msgs...), nil, discard{}, discard{}); code != 0 {
				b.Fatalf("exit %d", code)
			}
		}
		floor = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			if code := run(append(append(flags, "--replay", rec), msgs...), nil, discard{}, discard{}); code != 0 {
				b.Fatalf("exit %d", code)
			}
		}
		per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(float64(calls), "calls")
		b.ReportMetric(per/1e6, "ms/session")
		if floor > 0 {
			b.ReportMetric(per/floor, "floor-ratio")
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func openCassetteB(path string) (*cassette.Cassette, error) { return cassette.Open(path) }
