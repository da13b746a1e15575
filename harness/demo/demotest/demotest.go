// Package demotest opens engine sessions over the sample skills with the
// offline demo model served on loopback, for the tests of packages that
// drive a real engine.
package demotest

import (
	"path/filepath"
	"testing"

	"skillet/harness/config"
	"skillet/harness/demo"
	"skillet/harness/llm"
	"skillet/skills"
)

// Parts are what an engine session over the sample skills is made of; the
// test builds the session's options from them, so that this package needs
// no engine of its own.
type Parts struct {
	Config    *config.Config
	Catalog   *skills.Catalog
	Model     *llm.Client
	ModelName string
}

// Sample returns the parts of a session over the sample skills in root
// (the repository's sample-skills folder, relative to the test's package)
// with the demo model on a loopback server that closes with the test.
func Sample(tb testing.TB, root string) Parts {
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
	return Parts{Config: cfg, Catalog: cat, Model: client, ModelName: demo.ModelName}
}
