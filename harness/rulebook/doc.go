// Package rulebook is the core of Skillet's engine: a session's state as
// plain values, the fold that builds it from events, and the rules that
// decide from the state alone and record their decisions as events. Apply
// reads nothing but the event and the state, so a reopened journal is the
// live session.
// Its files import no os, os/exec, sync, context or net package and never
// read the clock (purity_test.go checks this).
//
// Where each rule of the rule book (DESIGN §2) lives in this package:
//
//	R1  one transcript ............ state.go (State.Entries), apply.go (addMessage)
//	R2  LRU ....................... apply.go (touch, removeLoaded), unload.go (Victims, SetLimit)
//	R3  active skill .............. apply.go (touch; SkillActivated)
//	R4  unload .................... apply.go (removeLoaded: text, tools, state go; store stays), unload.go (UnloadByUser)
//	R7  contextChanged ............ apply.go (addNote: notes travel with the next user message), unload.go (the unload lines)
//	R9  window .................... window.go (ComputeWindow)
//	R12 load limits ............... load.go (OverLimit)
//	R2, R7 a load ................. load.go (Evicted, Insert: evictions, the load, their lines)
//	R13 load identity ............. apply.go (noteLoaded, TurnState.Execs), load.go (ReadThisTurn)
//	R15 approvals ................. apply.go (Approval: Approved, Approvals)
//	R16 preload ................... apply.go (SkillPreload)
//	R17 skills read every turn .... sync.go (Sync: edits, removals, invalid, too long)
//	R20 Offered/Delivered/Loaded .. apply.go (ModelCall, SkillLoaded), state.go (TurnState), turnend.go (TurnEnd)
//	R21 uses ...................... apply.go (ModelCall reused, ToolResult), turnend.go (TurnEnd)
//	R23 frozen prompt ............. apply.go (PromptFrozen, thawFrozen)
//	R26 state and store ........... apply.go (StateChanged, for loads and preloads)
//
// The rules that need the skill catalog, the tool definitions or a token
// count (R5, R6, R8, R10, R11, R14, R18, R19, R22, R24, R25) are decided by
// the shell in package harness, in functions of a frame (the state and what
// the shell knows of the world, handed out under its lock) that return
// events; they ask the rules above, and their events are folded here.
package rulebook
