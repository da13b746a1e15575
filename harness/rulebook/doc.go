// Package rulebook is the core of Skillet's engine: a session's state as
// plain values and the fold that builds it from events. Apply reads nothing
// but the event and the state, so a reopened journal is the live session.
// Its files import no os, os/exec, sync, context or net package and never
// read the clock (purity_test.go checks this).
//
// Where each rule of the rule book (DESIGN §2) lives in this package:
//
//	R1  one transcript ............ state.go (State.Entries), apply.go (addMessage)
//	R2  LRU ....................... apply.go (touch, removeLoaded)
//	R3  active skill .............. apply.go (touch; SkillActivated)
//	R4  unload .................... apply.go (removeLoaded: text, tools, state go; store stays)
//	R7  contextChanged ............ apply.go (addNote: notes travel with the next user message)
//	R9  window .................... window.go (ComputeWindow)
//	R13 load identity ............. apply.go (noteLoaded, TurnState.Execs)
//	R15 approvals ................. apply.go (Approval: Approved, Approvals)
//	R16 preload ................... apply.go (SkillPreload)
//	R20 Offered/Delivered/Loaded .. apply.go (ModelCall, SkillLoaded), state.go (TurnState)
//	R21 uses ...................... apply.go (ModelCall reused, ToolResult)
//	R23 frozen prompt ............. apply.go (PromptFrozen, thawFrozen)
//	R26 state and store ........... apply.go (StateChanged, for loads and preloads)
//
// The rules that decide (R5, R6, R8, R10–R12, R14, R17–R19, R22, R24, R25)
// are computed by the shell in package harness from this state and the
// skill catalog, and record their decisions as events folded here.
package rulebook
