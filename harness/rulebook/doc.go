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
//	R2  LRU ....................... apply.go (touch, removeLoaded), load.go (Evicted, Insert), loads.go (Place), unload.go (Victims, SetLimit)
//	R3  active skill .............. apply.go (touch; SkillActivated), compose.go (active="true"), loads.go (DecideModelLoad)
//	R4  unload .................... apply.go (removeLoaded: text, tools, state go; store stays), unload.go (UnloadByUser)
//	R5  all loaded tools work ..... tools.go (BuildTools: every preloaded and loaded skill's tools)
//	R6  unknown tool .............. calls.go (UnknownTool)
//	R7  contextChanged ............ apply.go (addNote: notes travel with the next user message), load.go, unload.go, sync.go (the lines)
//	R8  skill text in context ..... compose.go (Compose, SkillElement)
//	R9  window .................... window.go (ComputeWindow), compose.go, next.go (trims)
//	R10 the list .................. compose.go (ListBlock), next.go (list: ranked by World.Rank against the latest user message; the skills left off named)
//	R11 tool-result delivery ...... compose.go (Delivered while the result is in the window), next.go (the out-of-window warning)
//	R12 load limits ............... limits.go (LoadLimits, for every load path: the model's, paste, user, preload, an edit, and whether any load could take a skill, as why, validate and the snapshot ask), load.go (OverLimit)
//	R13 load identity ............. apply.go (noteLoaded, TurnState.Execs), load.go (ReadThisTurn), world.go (NextExec)
//	R14 skill tools ............... tools.go (BuildToolsWith, PinConflict, MadeAvailable, ToolsAfterEdit)
//	R15 approvals ................. apply.go (Approval: Approved, Approvals), tools.go (policy), grant.go (Authorize, Answered; AgentGrant and KnownSafe for the profile's own tools)
//	R16 preload ................... apply.go (SkillPreload), compose.go (Preloaded), loads.go (Preloads)
//	R17 skills read every turn .... sync.go (Synced, Sync: edits, removals, invalid, too long)
//	R18 validation ................ world.go (Select: a skill named like a tool the model sees); the spec's rules are skills.Parse's
//	R19 selection ................. world.go (Select, UnknownSkill, Closest); matching the config to the catalog is skills.Catalog.Select's
//	R20 Offered/Delivered/Loaded .. apply.go (ModelCall, SkillLoaded), state.go (TurnState), compose.go, turnend.go (TurnEnd)
//	R21 uses ...................... apply.go (ModelCall reused, ToolResult), turnend.go (TurnEnd), next.go (reusedTools)
//	R22 paste mode ................ loads.go (Paste, PasteOne: the top-ranked within the limits), compose.go (pasted skills are named)
//	R23 frozen prompt ............. apply.go (PromptFrozen, thawFrozen), compose.go (frozen), next.go (Freeze), tools.go (FrozenTools)
//	R24 tool-call limit ........... calls.go (GateCall, CallsEnded)
//	R25 cancel .................... calls.go (GateCall: every call left gets CancelledResult)
//	R26 state and store ........... apply.go (StateChanged, for loads and preloads)
//
// Under another agent's profile, activate.go decides its activation tool
// and profile.go whether the lifecycle rules apply.
//
// What the rules read besides the state is a World (world.go): the
// catalog and its selection, the agent's tools and every tool definition,
// MCP ones as their servers gave them, a Ranker and a Counter. The shell
// (package harness) builds it before each step — it refreshes the catalog
// and asks MCP servers first — and records the events a rule returns;
// where a rule needs I/O done first it returns a plan (loads.go's Plan)
// that the shell carries out and records with another rule (Place). The
// shell decides no rule itself: it runs tools, asks approvals, streams the
// model and cancels what is in flight.
package rulebook
