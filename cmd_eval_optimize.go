package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/eval"
	"skillet/harness/eval/report"
	"skillet/skills"
)

// Files --optimize writes into the eval's folder, beside one eval folder
// per iteration (iter-N).
const (
	optimizeJSON = "optimize.json"
	optimizeHTML = "optimize.html"
)

// runOptimize is `skillet eval --optimize SKILL`: the description loop.
func (f *evalFlags) runOptimize(dir string, m *eval.Manifest, w *wiring, stdout, stderr io.Writer) int {
	name := f.optimize
	sk := w.catalog.Get(name)
	var queries []eval.Query
	for _, q := range m.Queries {
		if q.Skill == name {
			queries = append(queries, q)
		}
	}
	if sk == nil || len(queries) == 0 {
		fmt.Fprintf(stderr, "skillet eval: --optimize %s: no query is about that skill\n", name)
		return 2
	}
	if _, _, err := eval.Split(queries, m.Plan.Seed); err != nil {
		fmt.Fprintln(stderr, "skillet eval:", err)
		return 2
	}
	if w.demo {
		fmt.Fprintln(stderr, "skillet: using the offline demo model (rule-based, not an LLM): it cannot rewrite descriptions")
	}
	m.Queries = queries
	m.Skills = []eval.SkillInfo{{Name: name, Description: sk.Description}}
	warnPlan(stderr, m.Plan)
	improver := firstOf(f.improveModel, w.name)

	ctx, sigs := catchStops(context.Background())
	defer sigs.stop()
	opt := &eval.Optimizer{Skill: name, Original: sk.Description, Body: sk.Body, Queries: queries, Seed: m.Plan.Seed, Iterations: f.iterations,
		Log: func(format string, args ...any) { fmt.Fprintf(stderr, "skillet eval: "+format+"\n", args...) },
		Evaluate: func(ctx context.Context, n int, desc string) (*eval.Report, string, string, error) {
			return f.evaluateCandidate(ctx, dir, m, w, sk, n, desc, stderr)
		},
		Improve: func(ctx context.Context, prompt string) (string, error) {
			req := &chat.Request{Model: improver, Stream: true, StreamOptions: &chat.StreamOptions{IncludeUsage: true},
				Messages: []chat.Message{{Role: chat.RoleSystem, Content: eval.ImproverSystem}, {Role: chat.RoleUser, Content: prompt}}}
			reply, err := w.model.Complete(ctx, req, func(chat.StreamEvent) {})
			if err != nil {
				return "", err
			}
			return reply.Message.Content, nil
		},
	}
	res, err := opt.Run(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "skillet eval:", err)
		return 1
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, optimizeJSON), append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(stderr, "skillet eval:", err)
		return 1
	}
	page, err := report.OptimizeHTML(res)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, optimizeHTML), page, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "skillet eval:", err)
		return 1
	}
	printOptimization(stdout, res, dir)
	status := 0
	if res.Stopped != "" {
		fmt.Fprintln(stderr, "skillet eval: stopped:", res.Stopped)
		status = 1
	}
	if f.write && res.Improved {
		if err := writeDescription(sk, res.Best); err != nil {
			fmt.Fprintln(stderr, "skillet eval:", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote the new description to %s\n", sk.Path)
	}
	return status
}

// evaluateCandidate runs one iteration's eval in dir/iter-N: the original
// skill for iteration 0, else a copy of its folder with the candidate
// description read before every other skills folder.
func (f *evalFlags) evaluateCandidate(ctx context.Context, dir string, m *eval.Manifest, w *wiring, sk *skills.Skill, n int, desc string, stderr io.Writer) (*eval.Report, string, string, error) {
	iterDir := filepath.Join(dir, fmt.Sprintf("iter-%d", n))
	rw := *w
	if n > 0 {
		root, err := eval.CandidateRoot(filepath.Join(iterDir, "candidate"), sk, desc)
		if err != nil {
			return nil, "", "", err
		}
		roots := append([]skills.Root{{Dir: root, Label: "candidate"}}, w.catalog.Roots()...)
		rw.catalog = skills.NewCatalog(roots, w.cfg.ToolsDirs)
		if _, err := rw.catalog.Refresh(); err != nil {
			return nil, "", "", fmt.Errorf("read the candidate skill: %w", err)
		}
		if got := rw.catalog.Get(sk.Name); got == nil || got.Description != desc {
			return nil, "", "", fmt.Errorf("the candidate copy of %s did not take the place of the original", sk.Name)
		}
	}
	mi := *m
	mi.Skills = []eval.SkillInfo{{Name: sk.Name, Description: desc}}
	mi.Roots = rootDirs(rw.catalog)
	fmt.Fprintf(stderr, "skillet eval: iteration %d: %d queries\n", n, len(mi.Queries))
	rep, out, err := f.runScored(ctx, iterDir, &mi, &rw, stderr)
	if err != nil {
		return nil, "", "", err
	}
	stopped := out.Stopped
	if stopped == eval.StoppedFailing {
		stopped += ": " + out.Failure
	}
	return rep, iterDir, stopped, nil
}

// writeDescription puts the new description into the skill's own SKILL.md.
func writeDescription(sk *skills.Skill, desc string) error {
	text, err := os.ReadFile(sk.Path)
	if err != nil {
		return fmt.Errorf("write description: %w", err)
	}
	out, err := eval.SetDescription(text, desc)
	if err != nil {
		return fmt.Errorf("write description of %s: %w", sk.Name, err)
	}
	fi, err := os.Stat(sk.Path)
	if err != nil {
		return fmt.Errorf("write description: %w", err)
	}
	if err := os.WriteFile(sk.Path, out, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("write description: %w", err)
	}
	return nil
}

// printOptimization writes each iteration's scores and the description
// change as a diff.
func printOptimization(w io.Writer, o *eval.Optimization, dir string) {
	fmt.Fprintf(w, "optimize %s: %d train, %d validation and %d held-out queries\n", o.Skill, len(o.Train), len(o.Validation), len(o.HeldOut))
	for _, it := range o.Iterations {
		mark := " "
		if it.Best {
			mark = "*"
		}
		if it.Note != "" && it.Train.Runs == 0 {
			fmt.Fprintf(w, "%s iteration %d: %s\n", mark, it.N, it.Note)
			continue
		}
		paired := ""
		if p := it.Paired; p != nil {
			paired = fmt.Sprintf(" · against iteration %d, query by query: z %.2f, needs %.2f", p.Against, p.Z, p.Needed)
		}
		fmt.Fprintf(w, "%s iteration %d: train %.2f [%.2f, %.2f] (%d/%d queries) · validation %.2f [%.2f, %.2f] (%d/%d queries)%s\n", mark, it.N,
			it.Train.Accuracy, it.Train.Low, it.Train.High, it.Train.Passed, it.Train.Queries,
			it.Validation.Accuracy, it.Validation.Low, it.Validation.High, it.Validation.Passed, it.Validation.Queries, paired)
	}
	if !o.Improved {
		fmt.Fprintln(w, "no description beat the original on validation, query by query beyond the noise: the original stays")
	} else {
		fmt.Fprintf(w, "--- %s description (original)\n+++ %s description (iteration %d)\n", o.Skill, o.Skill, o.BestIter)
		for _, l := range strings.Split(o.Original, "\n") {
			fmt.Fprintln(w, "-"+l)
		}
		for _, l := range strings.Split(o.Best, "\n") {
			fmt.Fprintln(w, "+"+l)
		}
	}
	if c := o.HeldOutCheck; c != nil {
		fmt.Fprintf(w, "held-out check (%d queries neither the improver nor the selection saw): original %.2f (%d/%d queries pass), iteration %d %.2f (%d/%d)\n",
			len(o.HeldOut), c.Original.Accuracy, c.Original.Passed, c.Original.Queries, o.BestIter, c.Best.Accuracy, c.Best.Passed, c.Best.Queries)
	}
	fmt.Fprintf(w, "iterations in %s: %s, %s\n", dir, optimizeJSON, optimizeHTML)
}
