// Package sampleskills holds the sample skills, their tool files and
// their skillet.toml, embedded in the binary: the workspace Skillet falls
// back to when no skills folder exists. Together they put the rule book
// to work: preload, pins, a pin conflict, a command tool, state and store.
package sampleskills

import "embed"

// FS holds skillet.toml, the workspace tools/ folder and one folder per
// sample skill, at its top level. Command tools need real files, so the
// caller writes FS to disk (skills.Materialize) before reading it.
//
//go:embed skillet.toml tools
//go:embed house-style account-review fraud-triage release-checklist
//go:embed meeting-notes incident-report sql-review
var FS embed.FS
