package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"

	"skillet/harness"
	"skillet/harness/bench"
	"skillet/ui"
)

// tuiBench is the terminal UI's /bench: `skillet bench SKILL` with the
// session's skills, config and model, into a folder of its own, whose
// runs the report's view then opens.
func tuiBench(c *common) func(skill string) (*ui.BenchResult, error) {
	return func(skill string) (*ui.BenchResult, error) {
		out := freshFolder("benches")
		args := []string{skill, "--out", out}
		for _, d := range c.skills {
			args = append(args, "--skills", d)
		}
		if c.config != "" {
			args = append(args, "--config", c.config)
		}
		if c.baseURL != "" {
			args = append(args, "--base-url", c.baseURL)
		}
		if c.model != "" {
			args = append(args, "--model", c.model)
		}
		if c.offline {
			args = append(args, "--offline")
		}
		var stdout, stderr strings.Builder
		code := runBench(args, &stdout, &stderr)
		res := &ui.BenchResult{Report: stdout.String(), Runs: benchRuns(out)}
		if code != 0 {
			return res, errors.New(strings.TrimSpace(stderr.String()))
		}
		return res, nil
	}
}

// benchRuns lists the runs of the benchmark in dir that have a journal,
// in the report's order; none when the folder cannot be read.
func benchRuns(dir string) []ui.BenchRun {
	f, err := bench.ReadFolder(dir)
	if err != nil {
		return nil
	}
	var out []ui.BenchRun
	for _, s := range f.Report().Skills {
		for _, r := range s.Runs {
			session := filepath.Join(bench.RunDir(dir, r.Skill, r.EvalID, r.Configuration, r.Attempt), bench.SessionID)
			if !exists(filepath.Join(session, harness.JournalFile)) {
				continue // it never started
			}
			out = append(out, ui.BenchRun{Label: r.Skill + " · " + bench.RunLabel(r), Outcome: runOutcome(r), Session: session})
		}
	}
	return out
}

// runOutcome says how a run was graded, in a few words.
func runOutcome(r *bench.RunResult) string {
	if !r.Scored() {
		msg := r.Error
		if len(msg) > 60 {
			msg = msg[:60] + "…"
		}
		return "error: " + msg
	}
	p, t := r.Counts()
	switch {
	case t == 0:
		return "not graded"
	case p == t:
		return fmt.Sprintf("passed %d/%d", p, t)
	}
	return fmt.Sprintf("failed %d/%d", p, t)
}

// tuiOpenRun folds a bench run's session read-only for the UI, with the
// skills it recorded unless the session's flags name others.
func tuiOpenRun(c *common) func(session string) (*ui.OpenedRun, error) {
	return func(session string) (*ui.OpenedRun, error) {
		w, err := viewWiring(c, session)
		if err != nil {
			return nil, err
		}
		s, _, err := inspectWith(w, nil)
		if err != nil {
			return nil, err
		}
		return &ui.OpenedRun{Engine: s, Close: func() { s.Close() }, Why: viewWhy(c, session)}, nil
	}
}

// viewWhy is the /why card of a session shown read-only: skillet why
// over its journal.
func viewWhy(c *common, session string) func(skill string) (string, error) {
	return func(skill string) (string, error) {
		args := []string{skill, "--session", session}
		for _, d := range c.skills {
			args = append(args, "--skills", d)
		}
		if c.config != "" {
			args = append(args, "--config", c.config)
		}
		var out, errOut strings.Builder
		if code := runWhy(args, &out, &errOut); code != 0 {
			return out.String(), errors.New(strings.TrimSpace(errOut.String()))
		}
		return out.String(), nil
	}
}

// viewWiring finds the session at path and its skills as --resume does,
// with the skills and config the flags name instead, if any.
func viewWiring(c *common, path string) (*wiring, error) {
	vc := common{resume: path, skills: c.skills, config: c.config, sessionDir: c.sessionDir}
	w, err := wireSkills(&vc)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			err = usageError{strings.TrimPrefix(ue.msg, "--resume: ")}
		}
		return nil, err
	}
	return w, nil
}

// inspectWith folds w's journal read-only, as skillet show does; problems
// are the journal lines it skipped.
func inspectWith(w *wiring, progress func(done, total int64)) (*harness.Session, []string, error) {
	opts := harness.Options{Config: w.cfg, Catalog: w.catalog, Model: silentModel{}, Roots: rootDirs(w.catalog), OnProgress: progress}
	return harness.Inspect(w.journal, opts)
}

// viewTarget is what --view PATH opens: the session folder or id, and how
// the interface names it.
func viewTarget(path string) (string, *ui.ReadOnly, error) {
	if exists(filepath.Join(path, bench.ManifestFile)) {
		msg := fmt.Sprintf("--view %s: a benchmark's folder, not one run: give a run's folder, %s", path,
			filepath.Join(path, "SKILL", "eval-ID", "CONFIG", "run-N"))
		if runs := benchRuns(path); len(runs) > 0 {
			msg += ", such as " + filepath.Dir(runs[0].Session)
		}
		return "", nil, usageError{msg + " (skillet bench report " + path + " scores it)"}
	}
	run := path
	if filepath.Base(filepath.Clean(path)) == bench.SessionID {
		run = filepath.Dir(filepath.Clean(path))
	}
	if exists(filepath.Join(run, bench.GradingFile)) || exists(filepath.Join(run, bench.SessionID, harness.JournalFile)) {
		session := filepath.Join(run, bench.SessionID)
		if !exists(filepath.Join(session, harness.JournalFile)) {
			return "", nil, usageError{fmt.Sprintf("--view %s: the run has no journal (%s): it never started", path, filepath.Join(session, harness.JournalFile))}
		}
		label := runPathLabel(run)
		if r, err := bench.ReadRun(run); err == nil {
			label = r.Skill + " · " + bench.RunLabel(r) + " · " + runOutcome(r)
		}
		return session, &ui.ReadOnly{Reason: "a bench run", Label: label, Back: "quits"}, nil
	}
	return path, &ui.ReadOnly{Reason: "opened with --view", Label: path, Back: "quits"}, nil
}

// runPathLabel names a run by its folder: SKILL/eval-ID/CONFIG/run-N.
func runPathLabel(run string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(run)), "/")
	if len(parts) > 4 {
		parts = parts[len(parts)-4:]
	}
	return strings.Join(parts, " · ")
}

// runView is `skillet --view PATH`: a session, or a bench run, in the
// terminal UI without taking turns; nothing is written.
func runView(path string, f *tuiFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	if f.resume != "" {
		fmt.Fprintln(stderr, "skillet: --view and --resume: give one (--view opens a session read-only, --resume continues it)")
		return 2
	}
	if f.style != "" && !ui.IsMarkdownStyle(f.style) {
		fmt.Fprintf(stderr, "skillet: --style %s: not a style; the styles are %s\n", f.style, strings.Join(ui.MarkdownStyles(), ", "))
		return 2
	}
	target, ro, err := viewTarget(path)
	if err != nil {
		return reportError(stderr, "skillet", err)
	}
	w, err := viewWiring(&f.common, target)
	if err != nil {
		return reportError(stderr, "skillet", fmt.Errorf("--view %s: %w", path, err))
	}
	if !isTerminal(stdin) || !isTerminal(stdout) {
		fmt.Fprintf(stderr, "skillet --view needs a terminal; to print the session's state: skillet show %s\n", shellQuote(target))
		return 2
	}
	// a long journal takes a while to fold: the UI draws at once with a
	// progress line, as for --resume
	var problems []string
	re := startReopen(func(progress func(done, total int64)) (*harness.Session, error) {
		s, p, err := inspectWith(w, progress)
		problems = p
		return s, err
	})
	ctx, sigs := catchSignals(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer sigs.stop()
	err = ui.Run(ctx, nil, nil, ui.Options{Style: f.style, Present: f.present, ReadOnly: ro, Why: viewWhy(&f.common, w.journal),
		Opening: &ui.Opening{Label: w.journal, Progress: re.progress, Wait: re.wait}})
	<-re.done
	if re.s != nil {
		re.s.Close()
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "skillet: %s: %s was skipped\n", w.journal, p)
	}
	if err != nil {
		fmt.Fprintln(stderr, "skillet:", err)
		return 1
	}
	return 0
}
