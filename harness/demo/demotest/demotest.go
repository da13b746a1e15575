// Package demotest opens engine sessions over the sample skills with the
// offline demo model served on loopback, for the tests of packages that
// drive a real engine.
package demotest

import (
	"path/filepath"
	"testing"

	"skillet/harness"
	"skillet/harness/config"
	"skillet/harness/demo"
	"skillet/harness/llm"
	"skillet/skills"
)

// Options returns the options of a session over the sample skills in root
// (the repository's sample-skills folder, relative to the test's package)
// with the demo model on a loopback server that closes with the test.
func Options(tb testing.TB, root string) harness.Options {
	tb.Helper()
	srv, err := demo.Start()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	client, err := llm.New(llm.Config{BaseURL: srv.URL})
	if err != nil {
		tb.Fatal(err)
	}
	root, err = filepath.Abs(root)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(root, config.File))
	if err != nil {
		tb.Fatal(err)
	}
	cfg.SkillsDirs = nil
	cat := skills.NewCatalog([]skills.Root{{Dir: root, Label: "samples"}}, cfg.ToolsDirs)
	if _, err := cat.Refresh(); err != nil {
		tb.Fatal(err)
	}
	return harness.Options{Config: cfg, Catalog: cat, Model: client, ModelName: demo.ModelName}
}
