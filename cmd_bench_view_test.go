package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
)

// TestViewOpensABenchRunReadOnly: skillet --view on a run's folder shows
// its transcript and panes, steps through its model calls, refuses to
// send and quits with ctrl+q, having written nothing.
func TestViewOpensABenchRunReadOnly(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	srv := benchtest.New(reportAgent)
	defer srv.Close()
	out := filepath.Join(tmp, "b")
	if code, stdout, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--runs", "2", "--out", out); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := bench.RunDir(out, "report-style", 1, bench.WithSkill, 2)
	journal := filepath.Join(run, bench.SessionID, "journal.jsonl")
	before := readFile(t, journal)
	requests := srv.Requests()

	u := startTUI(t, tmp, "--view", shellQuote(run))
	u.waitFor("read-only: a bench run · report-style · eval 1 · with_skill · run 2 · passed 2/2 · ctrl+q quits")
	u.waitFor("Write the report for eval one")
	screen := u.screen()
	for _, want := range []string{"report-style", "write"} { // the LRU and tools panes
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	u.send("write it again")
	u.waitFor("read-only: a bench run · nothing is sent or changed")
	if !strings.Contains(u.screen(), "write it again") {
		t.Errorf("the refused message left the input:\n%s", u.screen())
	}
	u.keys("C-u") // clear the input
	u.send("/load report-style")
	u.waitFor("load report-style: read-only")
	u.send("/history 1")
	u.waitFor("viewing call 1 of 3")
	u.keys("M-]")
	u.waitFor("viewing call 2 of 3")
	u.keys("Escape")
	waitGone(u, "viewing call 2 of 3")
	u.send("/why report-style") // the card reads the run's journal
	u.waitFor(`"Write the report for eval one" · offered at rank 1 of 1`)
	u.keys("Escape")
	waitGone(u, "offered at rank 1 of 1")
	u.keys("C-q")
	u.waitFor("SKILLET-EXIT=0")
	if after := readFile(t, journal); after != before {
		t.Error("viewing the run changed its journal")
	}
	if srv.Requests() != requests {
		t.Errorf("viewing the run asked the model %d times", srv.Requests()-requests)
	}

	// a benchmark's folder is not one run: the error names one
	code, _, stderr := runCmd(t, "", "--view", out)
	if code != 2 || !strings.Contains(stderr, "a benchmark's folder, not one run") || !strings.Contains(stderr, filepath.Join(out, "report-style", "eval-1")) {
		t.Errorf("--view on the benchmark: exit %d, %q", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--view", filepath.Join(tmp, "gone")}, "no session " + filepath.Join(tmp, "gone")},
		{[]string{"--view", lib}, "holds no session journal"},
		{[]string{"--view", run}, "--view needs a terminal; to print the session's state: skillet show " + filepath.Join(run, "session")},
		{[]string{"--view", run, "--resume", run}, "--view and --resume: give one"},
	} {
		if code, _, stderr := runCmd(t, "", c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestTUIBenchOpensARunAndComesBack: /bench in the live session runs the
// skill's evals in the background; from its report a run is picked and
// shown read-only (transcript, panes, time travel, sending refused); ctrl+q
// comes back to the live session, which still takes turns.
func TestTUIBenchOpensARunAndComesBack(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	srv := benchtest.New(reportAgent)
	defer srv.Close()
	u := startTUI(t, tmp, "--skills", shellQuote(lib), "--base-url", shellQuote(srv.URL))
	u.waitFor("Message the model")
	u.send("/bench report-style")
	u.waitFor("report-style: helps · pooled delta")
	u.waitFor("enter open a run read-only")
	u.keys("Enter")
	u.waitFor("Open which run? (read-only)")
	u.waitFor("report-style · eval 1 · without_skill · run 3 · failed 1/2")
	exec.Command("tmux", "-S", u.sock, "send-keys", "-t", "t", "-l", "--", "without_skill · run 3").Run()
	u.keys("Enter")
	u.waitFor("read-only: a bench run · report-style · eval 1 · without_skill · run 3 · failed 1/2 · ctrl+q back to the live session")
	u.waitFor("plain report")
	u.send("try harder")
	u.waitFor("read-only: a bench run · nothing is sent or changed")
	u.keys("C-u")
	u.send("/history 1")
	u.waitFor("viewing call 1 of 2")
	u.keys("M-]")
	u.waitFor("viewing call 2 of 2")
	u.keys("Escape")
	waitGone(u, "viewing call 2 of 2")
	u.send("/why report-style") // the run had no skill to offer
	u.waitFor("why report-style")
	u.waitFor("turns of session session")
	u.keys("Escape")
	waitGone(u, "turns of session session")
	u.keys("C-q")
	u.waitFor("back to the live session from report-style · eval 1 · without_skill · run 3")
	if s := u.screen(); strings.Contains(s, "read-only: a bench run · report-style") {
		t.Errorf("the read-only line outlived the run:\n%s", s)
	}
	u.keys("Escape") // the run list: back to the report
	u.waitFor("enter open a run read-only")
	u.keys("Escape")
	waitGone(u, "enter open a run read-only")
	u.send("say hello for eval two")
	u.waitFor("hello there")
	u.quit()
}

// waitGone polls the screen until text is no longer on it.
func waitGone(u *tui, text string) {
	u.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if !strings.Contains(u.screen(), text) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	u.t.Fatalf("%q stayed on the screen:\n%s", text, u.screen())
}

// A newcomer's first bench: the sample skills' incident-report ships
// evals, and on the offline demo model its skill-dependent eval helps and
// the other shows no evidence; each run reads back with skillet show,
// although the samples' config names skills the run's catalog leaves out.
func TestBenchSampleSkillOffline(t *testing.T) {
	tmp := isolate(t)
	out := filepath.Join(tmp, "out")
	code, stdout, stderr := runBinary(t, "bench", "incident-report", "--out", out)
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"incident-report: helps", "helps        5/5", "· Eval 1", "no evidence  5/5"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	run := filepath.Join(out, "incident-report", "eval-1", "with_skill", "run-1")
	code, shown, stderr := runBinary(t, "show", filepath.Join(run, "session"))
	if code != 0 || !strings.Contains(shown, "incident-report v1") {
		t.Fatalf("show of a bench run: exit %d\n%s\n%s", code, shown, stderr)
	}
}
