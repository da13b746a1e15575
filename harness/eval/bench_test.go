package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/journal"
	"strings"
	"syscall"
	"testing"
	"time"

	"skillet/harness"
	"skillet/harness/chat"
	"skillet/harness/eval/evaltest"
	"skillet/harness/llm"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRunOverhead measures the CPU one eval run costs beyond its
// model calls: each run (a session, one turn, a load and an answer, its
// journal, classification) against the floor of the same two model calls
// made with the bare client, in the same benchmark run. Reported as
// overhead-cpu-ms/run.
func BenchmarkRunOverhead(b *testing.B) {
	srv := evaltest.New(map[string][]evaltest.Decision{"alpha: x": {evaltest.Load("alpha")}})
	defer srv.Close()
	open, names := harnessFor(b, library(b), srv.URL)
	client, err := llm.New(llm.Config{BaseURL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}

	// the floor: the two requests of a run, with the bare client
	const floorRuns = 200
	start := cpuTime()
	for range floorRuns {
		req := &chat.Request{Model: "scripted", Messages: []chat.Message{{Role: chat.RoleUser, Content: "alpha: x"}}}
		r, err := client.Complete(context.Background(), req, func(chat.StreamEvent) {})
		if err != nil {
			b.Fatal(err)
		}
		req.Messages = append(req.Messages, r.Message, chat.Message{Role: chat.RoleTool, ToolCallID: r.Message.ToolCalls[0].ID, Content: "ok"})
		if _, err := client.Complete(context.Background(), req, func(chat.StreamEvent) {}); err != nil {
			b.Fatal(err)
		}
	}
	floor := (cpuTime() - start) / floorRuns

	// one-time costs (the tokenizer's tables) are not a run's
	warm := manifest(names, Plan{Runs: 1, Arms: []string{""}}, q("alpha", "alpha: x", true))
	if _, err := Execute(context.Background(), Options{Dir: b.TempDir(), Manifest: warm, Workers: 1, NewSession: open}); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	m := manifest(names, Plan{Runs: b.N, Arms: []string{""}}, q("alpha", "alpha: x", true))
	b.ResetTimer()
	start = cpuTime()
	out, err := Execute(context.Background(), Options{Dir: dir, Manifest: m, Workers: 1, NewSession: open})
	cpu := cpuTime() - start
	b.StopTimer()
	if err != nil || len(out.Runs) != b.N {
		b.Fatalf("%d runs, %v", len(out.Runs), err)
	}
	per := cpu / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/1000, "cpu-ms/run")
	b.ReportMetric(float64(floor.Microseconds())/1000, "floor-cpu-ms/run")
	b.ReportMetric(float64((per-floor).Microseconds())/1000, "overhead-cpu-ms/run")
}

// floorOf is the CPU per run that the model calls of the runs in an eval
// folder cost by themselves: each request its journals recorded, sent
// again n times over with the bare client to the same endpoint, so that
// what a run costs beyond its model calls can be told apart in the same
// benchmark run.
func floorOf(b *testing.B, dir, url string, n int) time.Duration {
	b.Helper()
	client, err := llm.New(llm.Config{BaseURL: url})
	if err != nil {
		b.Fatal(err)
	}
	journals, _ := filepath.Glob(filepath.Join(dir, SessionsDir, "*", harness.JournalFile))
	var reqs []*chat.Request
	for _, j := range journals {
		f, err := os.Open(j)
		if err != nil {
			b.Fatal(err)
		}
		events, _, err := journal.Read(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range events {
			if mc, ok := e.(*event.ModelCall); ok {
				var r chat.Request
				if err := json.Unmarshal(mc.Request, &r); err != nil {
					b.Fatal(err)
				}
				reqs = append(reqs, &r)
			}
		}
	}
	if len(journals) == 0 || len(reqs) == 0 {
		b.Fatalf("no recorded model calls in %s", dir)
	}
	start := cpuTime()
	for range n {
		for _, r := range reqs {
			if _, err := client.Complete(context.Background(), r, func(chat.StreamEvent) {}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return (cpuTime() - start) / time.Duration(n*len(journals))
}

// reportRun reports a run's CPU, its model calls' floor and the
// difference: what Skillet itself costs per run.
func reportRun(b *testing.B, per, floor time.Duration) {
	b.ReportMetric(float64(per.Microseconds())/1000, "cpu-ms/run")
	b.ReportMetric(float64(floor.Microseconds())/1000, "floor-cpu-ms/run")
	b.ReportMetric(float64((per-floor).Microseconds())/1000, "overhead-cpu-ms/run")
}

// folder1000 makes an eval folder of 1,000 finished runs.
func folder1000(b *testing.B) (string, *Manifest) {
	b.Helper()
	srv := evaltest.New(map[string][]evaltest.Decision{
		"alpha: a": {evaltest.Load("alpha"), evaltest.ToolLoad("bogus", "alpha"), evaltest.Answer()},
		"alpha: b": {evaltest.Load("beta"), evaltest.Answer()},
	})
	defer srv.Close()
	open, names := harnessFor(b, library(b), srv.URL)
	var qs []Query
	for i := range 100 {
		text := "alpha: a"
		if i%2 == 1 {
			text = "alpha: b"
		}
		qs = append(qs, Query{Query: fmt.Sprintf("%s %d", text, i), ShouldTrigger: i%2 == 0, Skill: "alpha"})
	}
	dir := b.TempDir()
	m := manifest(names, Plan{Runs: 10, Arms: []string{""}}, qs...)
	out, err := Execute(context.Background(), Options{Dir: dir, Manifest: m, Workers: 4, NewSession: open})
	if err != nil || len(out.Runs) != 1000 {
		b.Fatalf("%d runs, %v", len(out.Runs), err)
	}
	return dir, m
}

// BenchmarkRescore1000 re-scores a 1,000-run folder from its journals, as
// `skillet eval report` does.
func BenchmarkRescore1000(b *testing.B) {
	dir, m := folder1000(b)
	b.ResetTimer()
	for b.Loop() {
		runs, err := ReadRuns(dir)
		if err != nil {
			b.Fatal(err)
		}
		again, problems := Rescore(dir, m, runs)
		if len(problems) > 0 || len(again) != 1000 {
			b.Fatalf("%d runs, %v", len(again), problems)
		}
		if rep := Score(m, again); rep.Runs != 1000 {
			b.Fatal(rep.Runs)
		}
	}
}

// BenchmarkThroughput1000 runs 1,000 runs against an endpoint answering in
// 200 ms with 8 workers and reports the wall time as a ratio to the ideal
// 1,000 × 0.2 s / 8, and the peak RSS. It takes half a minute: run it by
// name with -benchtime=1x.
func BenchmarkThroughput1000(b *testing.B) {
	if !strings.Contains(fmt.Sprint(os.Args), "Throughput") {
		b.Skip("run by name: go test -run '^$' -bench Throughput1000 -benchtime=1x ./harness/eval/")
	}
	srv := evaltest.New(map[string][]evaltest.Decision{"alpha: x": {evaltest.Answer()}})
	srv.Delay = 200 * time.Millisecond
	defer srv.Close()
	open, names := harnessFor(b, library(b), srv.URL)
	var qs []Query
	for i := range 100 {
		qs = append(qs, Query{Query: fmt.Sprintf("alpha: x %d", i), ShouldTrigger: false, Skill: "alpha"})
	}
	for b.Loop() {
		m := manifest(names, Plan{Runs: 10, Arms: []string{""}}, qs...)
		start := time.Now()
		out, err := Execute(context.Background(), Options{Dir: b.TempDir(), Manifest: m, Workers: 8, NewSession: open})
		wall := time.Since(start)
		if err != nil || len(out.Runs) != 1000 {
			b.Fatalf("%d runs, %v", len(out.Runs), err)
		}
		ideal := 1000 * 200 * time.Millisecond / 8
		b.ReportMetric(wall.Seconds()/ideal.Seconds(), "wall/ideal")
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
}

// realCorpus is the shared folder of 1,180 real skills, from this
// package's folder in the repository's main checkout.
const realCorpus = "../../../shared/real-corpus/skills"

// BenchmarkRunOverheadCorpus is one run's CPU with the 1,180-skill corpus
// enabled: every run opens a session over the whole library.
func BenchmarkRunOverheadCorpus(b *testing.B) {
	corpus := os.Getenv("SKILLET_CORPUS")
	if corpus == "" {
		corpus = realCorpus
	}
	if _, err := os.Stat(corpus); err != nil {
		b.Skipf("no corpus at %s: %v", corpus, err)
	}
	srv := evaltest.New(map[string][]evaltest.Decision{"review the pull request": {evaltest.Answer()}})
	defer srv.Close()
	open, names := harnessFor(b, corpus, srv.URL)
	// start-up (the tokenizer's tables, the catalog's first reads) is
	// not a run's
	warm := b.TempDir()
	wm := manifest(names, Plan{Runs: 3, Arms: []string{""}}, q(names[0], "review the pull request", false))
	if _, err := Execute(context.Background(), Options{Dir: warm, Manifest: wm, Workers: 1, NewSession: open}); err != nil {
		b.Fatal(err)
	}
	floor := floorOf(b, warm, srv.URL, 100)
	m := manifest(names, Plan{Runs: b.N, Arms: []string{""}}, q(names[0], "review the pull request", false))
	dir := b.TempDir()
	b.ResetTimer()
	start := cpuTime()
	out, err := Execute(context.Background(), Options{Dir: dir, Manifest: m, Workers: 1, NewSession: open})
	cpu := cpuTime() - start
	b.StopTimer()
	if err != nil || len(out.Runs) != b.N {
		b.Fatalf("%d runs, %v", len(out.Runs), err)
	}
	reportRun(b, cpu/time.Duration(b.N), floor)
	b.ReportMetric(float64(len(names)), "skills")
}

// realSkill is a real skill of about 20 KB in the shared corpus.
const realSkill = "rdkit"

// BenchmarkRunOverheadRealSkill is BenchmarkRunOverhead with a 20 KB real
// skill beside the small ones, loaded by every run: the CPU a run costs
// beyond its model calls when the context holds a real skill's text.
func BenchmarkRunOverheadRealSkill(b *testing.B) {
	corpus := os.Getenv("SKILLET_CORPUS")
	if corpus == "" {
		corpus = realCorpus
	}
	text, err := os.ReadFile(filepath.Join(corpus, realSkill, "SKILL.md"))
	if err != nil {
		b.Skipf("no %s in the corpus at %s: %v", realSkill, corpus, err)
	}
	root := library(b)
	if err := os.MkdirAll(filepath.Join(root, realSkill), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, realSkill, "SKILL.md"), text, 0o644); err != nil {
		b.Fatal(err)
	}
	const ask = "rdkit: parse these SMILES"
	srv := evaltest.New(map[string][]evaltest.Decision{ask: {evaltest.Load(realSkill)}})
	defer srv.Close()
	open, names := harnessWith(b, root, srv.URL, 24000)
	warm := b.TempDir()
	wm := manifest(names, Plan{Runs: 3, Arms: []string{""}}, q(realSkill, ask, true))
	if _, err := Execute(context.Background(), Options{Dir: warm, Manifest: wm, Workers: 1, NewSession: open}); err != nil {
		b.Fatal(err)
	}
	floor := floorOf(b, warm, srv.URL, 100)
	dir := b.TempDir()
	m := manifest(names, Plan{Runs: b.N, Arms: []string{""}}, q(realSkill, ask, true))
	b.ResetTimer()
	start := cpuTime()
	out, err := Execute(context.Background(), Options{Dir: dir, Manifest: m, Workers: 1, NewSession: open})
	cpu := cpuTime() - start
	b.StopTimer()
	if err != nil || len(out.Runs) != b.N {
		b.Fatalf("%d runs, %v", len(out.Runs), err)
	}
	for _, r := range out.Runs {
		if !r.Result.Triggered {
			b.Fatalf("run %s did not load %s: %+v", r.Session, realSkill, r.Result)
		}
	}
	reportRun(b, cpu/time.Duration(b.N), floor)
	b.ReportMetric(float64(len(text))/1024, "skill-KB")
}
