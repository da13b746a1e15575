package bench_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
	"skillet/harness/chat"
	"skillet/harness/llm"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRunOverhead measures the CPU one bench run costs beyond its
// model calls: a session over the skill, a workspace copied from the
// eval's file, three model calls (load the skill, write a file, answer),
// the write, the journal, two checks and grading.json — against the floor
// of the same three requests made with the bare client. Reported as
// overhead-cpu-ms/run.
func BenchmarkRunOverhead(b *testing.B) {
	dir := writeSkill(b, `{"skill_name":"report-style","evals":[{"id":1,"prompt":"Write the report for eval one","files":["evals/files/data.csv"],
	 "checks":[{"kind":"file_contains","path":"report.md","text":"GOOD"},{"kind":"file_exists","path":"data.csv"}]}]}`)
	a := &agent{third: map[bool]int{}}
	srv := benchtest.New(a.reply)
	defer srv.Close()
	open := sessions(b, dir, srv.URL)
	s := suite(b, dir)
	client, err := llm.New(llm.Config{BaseURL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	// the floor: the run's three requests, with the bare client
	const floorRuns = 100
	start := cpuTime()
	for range floorRuns {
		req := &chat.Request{Model: "scripted", Messages: []chat.Message{{Role: chat.RoleSystem, Content: skillName}, {Role: chat.RoleUser, Content: "Write the report for eval one"}}}
		for range 3 {
			r, err := client.Complete(context.Background(), req, func(chat.StreamEvent) {})
			if err != nil {
				b.Fatal(err)
			}
			req.Messages = append(req.Messages, r.Message)
			for _, tc := range r.Message.ToolCalls {
				req.Messages = append(req.Messages, chat.Message{Role: chat.RoleTool, ToolCallID: tc.ID, Content: "ok Mark every report with GOOD report.md"})
			}
		}
	}
	floor := (cpuTime() - start) / floorRuns
	configs := []string{bench.WithSkill}
	// one-time costs (the tokenizer's tables, the sandbox probe) are not a run's
	if _, err := bench.Execute(context.Background(), bench.Options{Out: b.TempDir(), Suites: []*bench.Suite{s}, Configurations: configs, Runs: 1, Workers: 1, NewSession: open}); err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	b.ResetTimer()
	start = cpuTime()
	runs, err := bench.Execute(context.Background(), bench.Options{Out: out, Suites: []*bench.Suite{s}, Configurations: configs, Runs: b.N, Workers: 1, NewSession: open})
	cpu := cpuTime() - start
	b.StopTimer()
	if err != nil || len(runs) != b.N {
		b.Fatalf("%d runs, %v", len(runs), err)
	}
	for _, r := range runs {
		if !r.Passed() {
			b.Fatalf("run %d did not pass: %+v %s", r.Attempt, r.Grades, r.Error)
		}
	}
	per := cpu / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/1000, "cpu-ms/run")
	b.ReportMetric(float64(floor.Microseconds())/1000, "floor-cpu-ms/run")
	b.ReportMetric(float64((per-floor).Microseconds())/1000, "overhead-cpu-ms/run")
}

// BenchmarkThroughput200 runs 200 runs (20 evals × 5 runs × 2
// configurations) against an endpoint answering in 200 ms with 8 workers
// and reports the wall time as a ratio to the ideal 200 × 0.2 s / 8. Run
// it by name with -benchtime=1x.
func BenchmarkThroughput200(b *testing.B) {
	if !strings.Contains(fmt.Sprint(os.Args), "Throughput") {
		b.Skip("run by name: go test -run '^$' -bench Throughput200 -benchtime=1x ./harness/bench/")
	}
	var evals []string
	for i := range 20 {
		evals = append(evals, fmt.Sprintf(`{"id":%d,"prompt":"Say hello for eval two, number %d","checks":[{"kind":"answer_contains","text":"hello"}]}`, i+1, i))
	}
	dir := writeSkill(b, `{"skill_name":"report-style","evals":[`+strings.Join(evals, ",")+`]}`)
	srv := benchtest.New(func(benchtest.Request) benchtest.Reply { return benchtest.Reply{Text: "hello"} })
	srv.Delay = 200 * time.Millisecond
	defer srv.Close()
	open := sessions(b, dir, srv.URL)
	s := suite(b, dir)
	for b.Loop() {
		start := time.Now()
		runs, err := bench.Execute(context.Background(), bench.Options{Out: b.TempDir(), Suites: []*bench.Suite{s},
			Configurations: []string{bench.WithSkill, bench.WithoutSkill}, Runs: 5, Workers: 8, NewSession: open})
		wall := time.Since(start)
		if err != nil || len(runs) != 200 {
			b.Fatalf("%d runs, %v", len(runs), err)
		}
		ideal := 200 * 200 * time.Millisecond / 8
		b.ReportMetric(wall.Seconds()/ideal.Seconds(), "wall/ideal")
	}
}
