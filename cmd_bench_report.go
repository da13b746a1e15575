package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"skillet/harness/bench"
)

const benchReportUsage = `usage: skillet bench report [--require helps] DIR

Scores a benchmark's folder again without running anything: reads its
bench.json, each eval's eval_metadata.json and each run's grading.json,
makes the statistics again and rewrites every SKILL/benchmark.json,
junit.xml and report.html. Useful after editing or deleting a run's
grading.json by hand, or when a report file is lost. A benchmark still
missing runs is scored with what it has (skillet bench --resume DIR runs
the rest).

Exit status: 0, 1 when a --require is not met or the folder cannot be
read, 2 on a usage error (DIR is not a benchmark's folder).

Flags:
`

// runBenchReport is `skillet bench report`.
func runBenchReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skillet bench report", flag.ContinueOnError)
	require := fs.String("require", "", "`VERDICT` every skill's pooled verdict must reach, or the exit status is 1: helps")
	pos, code, done := parseInterleaved(fs, args, benchReportUsage, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "skillet bench report: give one DIR, a benchmark's folder (skillet bench --out DIR)")
		printUsage(fs, stderr, benchReportUsage)
		return 2
	}
	if *require != "" && *require != bench.VerdictHelps {
		fmt.Fprintf(stderr, "skillet bench report: --require %s: want helps\n", *require)
		return 2
	}
	dir := pos[0]
	f, err := bench.ReadFolder(dir)
	if err != nil {
		if !exists(filepath.Join(dir, bench.ManifestFile)) {
			return reportError(stderr, "skillet bench report", usageError{err.Error()})
		}
		return reportError(stderr, "skillet bench report", err)
	}
	rep := f.Report()
	if err := bench.WriteAll(dir, rep); err != nil {
		return reportError(stderr, "skillet bench report", err)
	}
	printBench(stdout, rep, dir)
	if f.Missing > 0 {
		fmt.Fprintf(stderr, "skillet bench report: %d scored runs are still missing; run them with: skillet bench --resume %s\n", f.Missing, dir)
	}
	return requireVerdict(stderr, "skillet bench report", *require, rep)
}

// requireVerdict is the exit status --require gives: 1 when a skill's
// pooled verdict is not the one required.
func requireVerdict(stderr io.Writer, who, require string, rep *bench.Report) int {
	status := 0
	if require == "" {
		return 0
	}
	for _, s := range rep.Skills {
		if s.Verdict != require {
			fmt.Fprintf(stderr, "%s: --require %s: %s is %s\n", who, require, s.Skill, s.Verdict)
			status = 1
		}
	}
	return status
}
