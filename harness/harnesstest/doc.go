// Package harnesstest holds what tests of the engine and of the programs
// built on it share: a scripted chat model that answers from a list of
// steps and keeps every request it was sent, and a workspace of skills,
// tools and a config written to a temporary folder.
//
// It imports nothing of package harness, so the harness's own tests can use
// it; the few names it shares with the engine (the load-skill tool, the
// config file) are constants here, held equal to the engine's by a test in
// package harness.
package harnesstest
