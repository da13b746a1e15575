// Package rulebook is the core of Skillet's engine: a session's state as
// plain values, the fold that builds it from events, and the rules that
// decide from the state alone and record their decisions as events. Apply
// reads nothing but the event and the state, so a reopened journal is the
// live session.
// Its files import no os, os/exec, sync, context or net package and never
// read the clock (purity_test.go checks this); the transcript's sealed
// pages (harness/paged) lock only to share what they decode.
//
// Where each rule of the rule book (DESIGN §2) lives in this package; each
// rule file starts with the rules it implements:
//
//	R1  one transcript ............ state.go (State.Entries), apply.go (addMessage; sealOld seals what the window left, see harness/paged)
//	R2  LRU ....................... apply.go (touch, removeLoaded), load.go (Evicted, Insert), unload.go (Victims, SetLimit)
//	R3  active skill .............. apply.go (touch; SkillActivated), compose.go (active="true")
//	R4  unload .................... apply.go (removeLoaded: text, tools, state go; store stays), unload.go (UnloadByUser)
//	R7  contextChanged ............ apply.go (addNote: notes travel with the next user message), load.go, unload.go, sync.go (the lines)
//	R8  skill text in context ..... compose.go (Compose, SkillElement)
//	R9  window .................... window.go (ComputeWindow), compose.go
//	R10 the list .................. compose.go (ListBlock; the shell ranks what fits)
//	R11 tool-result delivery ...... compose.go (Delivered while the result is in the window)
//	R12 load limits ............... limits.go (LoadLimits, for every load path: the model's, paste, user, preload, an edit, and whether any load could take a skill, as why, validate and the snapshot ask), load.go (OverLimit)
//	R13 load identity ............. apply.go (noteLoaded, TurnState.Execs), load.go (ReadThisTurn)
//	R15 approvals ................. apply.go (Approval: Approved, Approvals)
//	R16 preload ................... apply.go (SkillPreload), compose.go (Preloaded)
//	R17 skills read every turn .... sync.go (Sync: edits, removals, invalid, too long)
//	R20 Offered/Delivered/Loaded .. apply.go (ModelCall, SkillLoaded), state.go (TurnState), compose.go, turnend.go (TurnEnd)
//	R21 uses ...................... apply.go (ModelCall reused, ToolResult), turnend.go (TurnEnd)
//	R22 paste mode ................ compose.go (pasted skills are named)
//	R23 frozen prompt ............. apply.go (PromptFrozen, thawFrozen), compose.go (frozen)
//	R26 state and store ........... apply.go (StateChanged, for loads and preloads)
//
// What needs the skill catalog, tool definitions, a ranking or a token
// count (R5, R6, R10's ranking, R14, R18, R19, R22's choice, R24, R25) is
// decided by the shell in package harness, in functions of a frame (the
// state and what the shell knows of the world, handed out under its lock)
// that ask the rules above and return events, which are folded here.
package rulebook
