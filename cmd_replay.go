package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"skillet/harness"
	"skillet/harness/cassette"
	"skillet/harness/event"
)

const replayUsage = `usage: skillet replay diff [flags] FILE

Runs the user's messages (and hand-made loads, unloads and settings) of the
cassette FILE again, against today's skills and config, with the recorded
replies as the model, and prints what changed: per model call the request's
delta (which system text lines, list entries, tools and messages differ),
and per turn the Offered / Delivered / Loaded decisions that changed. The
skills, config, settings and profile are the recorded ones unless --skills,
--config, --set or --profile says.

No tool runs: each tool call is answered with the result the cassette
recorded for it (an ask tool as the recording answered it, which only picks
the recorded result). With --run-tools the tools run again, and then they
are approved as in a live headless run — only by --approve or
--approve-all; the recording's answers are shown, never applied, since a
cassette is a file anyone may have edited.
Exit status: 0 when every request is as recorded, 1 when one differs or the
session went another way, 2 on a usage error.

Flags:
`

// runReplay is `skillet replay`.
func runReplay(args []string, stdout, stderr io.Writer) int {
	var c replayFlags
	fs := replayDiffFlags(&c)
	if len(args) == 0 || args[0] != "diff" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			printUsage(fs, stdout, replayUsage)
			return 0
		}
		fmt.Fprintln(stderr, "skillet replay: want a subcommand: skillet replay diff FILE")
		printUsage(fs, stderr, replayUsage)
		return 2
	}
	files, code, done := parseInterleaved(fs, args[1:], replayUsage, stdout, stderr)
	if done {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "skillet replay diff: give one cassette FILE")
		printUsage(fs, stderr, replayUsage)
		return 2
	}
	return replayDiff(&c, files[0], stdout, stderr)
}

// replayFlags are the flags of `skillet replay diff`.
type replayFlags struct {
	common
	// runTools runs the tools again; approveAll and approve then answer
	// their ask tools, as in a headless run.
	runTools   bool
	approveAll bool
	approve    listFlag
}

// replayDiffFlags are the flags of `skillet replay diff`, set into c.
func replayDiffFlags(c *replayFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("skillet replay diff", flag.ContinueOnError)
	fs.StringVar(&c.config, "config", "", "`FILE` skillet.toml to use (default: the recorded one)")
	fs.Var(&c.skills, "skills", "a skills `DIR` searched first (repeatable; default: the recorded folders)")
	fs.Var(&c.sets, "set", "`KEY=VALUE` for a limit or mode of the rule book (repeatable); default: the recorded settings")
	fs.StringVar(&c.profile, "profile", "", "the `NAME` of the profile to compose the requests with (default: the recorded one)")
	fs.Var(&c.window, "context-window", "the model's context window in `TOKENS` (default: the recorded one)")
	fs.BoolVar(&c.runTools, "run-tools", false, "run the tools again instead of serving the recorded results (ask tools then need --approve)")
	fs.BoolVar(&c.approveAll, "approve-all", false, "with --run-tools: approve every tool whose policy is ask")
	fs.Var(&c.approve, "approve", "with --run-tools: approve the ask-policy `TOOL` (repeatable)")
	return fs
}

// replayDiff is `skillet replay diff FILE`.
func replayDiff(rf *replayFlags, file string, stdout, stderr io.Writer) int {
	c := &rf.common
	if !rf.runTools && (rf.approveAll || len(rf.approve) > 0) {
		fmt.Fprintln(stderr, "skillet replay diff: --approve and --approve-all need --run-tools: without it no tool runs")
		return 2
	}
	c.tape.replay, c.tape.lenient, c.tape.tools = file, true, !rf.runTools
	w, err := wire(c)
	if err != nil {
		return reportError(stderr, "skillet", err)
	}
	defer w.close()
	cas := w.tape.cassette
	for _, n := range w.notices {
		fmt.Fprintln(stdout, n)
	}
	d := &differ{out: stdout}
	opts := harness.Options{OnEvent: d.onEvent}
	if rf.runTools {
		for _, a := range cas.Approvals() {
			fmt.Fprintln(stdout, a+" — not applied: tools run, approved only by --approve")
		}
		opts.ApproveAll, opts.Approve = rf.approveAll, rf.approve
	} else {
		opts.Approver = cas.ServedApprover()
	}
	opts = sessionOptions(c, w, opts)
	opts.Dir = "" // a diff leaves no session behind
	s, err := harness.New(opts)
	if err != nil {
		return reportError(stderr, "skillet", err)
	}
	defer s.Close()
	ctx, sigs := catchStops(context.Background())
	defer sigs.stop()
	status := 0
	for _, a := range cas.Actions {
		if err := act(ctx, s, a); err != nil {
			fmt.Fprintln(stdout, err)
			status = 1
		}
		if w.tape.player.Ended() != "" || fatal(w.tape.player.Mismatches()) {
			break
		}
	}
	status = d.report(w.tape.player, cas, status)
	if cas.Truncated {
		// what came before the damage was compared, but not the recording
		fmt.Fprintf(stdout, "the cassette is damaged, so the replay cannot be whole: %s\n", cas.Problem)
		status = 1
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "skillet replay diff:", sigs.cancelled())
		return sigs.exitCode(1)
	}
	return status
}

// act repeats one recorded action.
func act(ctx context.Context, s *harness.Session, a *cassette.Action) error {
	switch a.Action {
	case cassette.ActionTurn:
		_, err := s.Turn(ctx, a.Text)
		return err
	case cassette.ActionLoad:
		return s.LoadSkill(a.Skill)
	case cassette.ActionUnload:
		return s.UnloadSkill(a.Skill)
	case cassette.ActionSet:
		if a.Key == "model" { // a /model switch is journaled as a setting
			return s.SetModel(a.Value)
		}
		return s.Set(a.Key, a.Value)
	}
	return nil
}

func fatal(ms []*cassette.Mismatch) bool {
	for _, m := range ms {
		if m.Fatal {
			return true
		}
	}
	return false
}

// differ gathers the replayed session's turn decisions.
type differ struct {
	out   io.Writer
	mu    sync.Mutex
	turns []*event.TurnEnd
}

func (d *differ) onEvent(ev event.Event) {
	if t, ok := ev.(*event.TurnEnd); ok {
		d.mu.Lock()
		d.turns = append(d.turns, t)
		d.mu.Unlock()
	}
}

// report prints each differing request and turn and the verdict, and
// returns the exit status.
func (d *differ) report(p *cassette.Player, cas *cassette.Cassette, status int) int {
	ms := p.Mismatches()
	seen := map[string]int{}
	for _, m := range ms {
		key := strings.Join(m.Lines, "\n")
		if first, ok := seen[key]; ok && !m.Fatal {
			fmt.Fprintf(d.out, "request %d differs the same way as request %d\n", m.Call, first)
			continue
		}
		seen[key] = m.Call
		fmt.Fprintln(d.out, m.Error())
	}
	d.mu.Lock()
	turns := d.turns
	d.mu.Unlock()
	changed := 0
	for i, now := range turns {
		if i >= len(cas.Turns) {
			break
		}
		if lines := decisionDelta(cas.Turns[i], now); len(lines) > 0 {
			changed++
			fmt.Fprintf(d.out, "turn %d decisions changed:\n  %s\n", i+1, strings.Join(lines, "\n  "))
		}
	}
	if end := p.Ended(); end != "" {
		fmt.Fprintln(d.out, end)
		status = 1
	} else if n, all := p.Served(), len(cas.Calls); n < all {
		fmt.Fprintf(d.out, "the session made %d of the recording's %d model calls\n", n, all)
		status = 1
	}
	if len(ms) > 0 || changed > 0 {
		status = 1
	}
	if status == 0 && !cas.Truncated {
		fmt.Fprintf(d.out, "all %d requests are as recorded\n", p.Served())
	} else if status != 0 {
		fmt.Fprintf(d.out, "%d of %d requests differ from the recording\n", len(ms), p.Served())
	}
	return status
}

// decisionDelta names what changed in a turn's Offered / Delivered /
// Loaded (R20).
func decisionDelta(was *cassette.TurnEnd, now *event.TurnEnd) []string {
	var out []string
	for _, f := range []struct {
		name     string
		was, now []string
	}{{"Offered", was.Offered, now.Offered}, {"Delivered", was.Delivered, now.Delivered}, {"Loaded", was.Loaded, now.Loaded}} {
		var add, drop []string
		for _, n := range f.now {
			if !slices.Contains(f.was, n) {
				add = append(add, "+"+n)
			}
		}
		for _, n := range f.was {
			if !slices.Contains(f.now, n) {
				drop = append(drop, "-"+n)
			}
		}
		if len(add)+len(drop) > 0 {
			out = append(out, fmt.Sprintf("%s: %s", f.name, strings.Join(append(drop, add...), " ")))
		}
	}
	return out
}
