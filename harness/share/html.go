package share

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"skillet/harness/rulebook"
)

// page is what the HTML replay's script reads.
type page struct {
	ID      string           `json:"id"`
	Model   string           `json:"model"`
	Demo    bool             `json:"demo"`
	Entries []rulebook.Entry `json:"entries"`
	Frames  []Frame          `json:"frames"`
}

// WriteHTML writes the session as one self-contained HTML page — no
// external script, style, font or image — that steps through the model
// calls with ← and → (or [ and ]): at each, the transcript up to the call
// and what the call brought, the loaded skills, the <current_context> and
// the tools of the request. #call=N in the address opens call N.
func WriteHTML(w io.Writer, s *Session) error {
	entries := s.Entries
	if entries == nil {
		entries = []rulebook.Entry{}
	}
	frames := s.Frames
	if frames == nil {
		frames = []Frame{}
	}
	// encoding/json escapes <, > and &, so no text can close the script
	data, err := json.Marshal(page{ID: s.ID, Model: s.Model, Demo: s.Demo, Entries: entries, Frames: frames})
	if err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	bw := bufio.NewWriter(w)
	title := html.EscapeString("Skillet session " + s.ID)
	r := strings.NewReplacer("{{TITLE}}", title, "{{DATA}}", string(data))
	r.WriteString(bw, htmlPage)
	return bw.Flush()
}

const htmlPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}}</title>
<style>
:root { color-scheme: dark; --bg:#16181d; --pane:#1e2128; --line:#333843; --fg:#d8dce3; --dim:#8a92a0; --user:#5fd7ff; --ai:#87d787; --tool:#e5c07b; --note:#c792ea; --bad:#ff6b6b; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg); font:14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; height:100vh; display:flex; flex-direction:column; }
header { display:flex; gap:1em; align-items:center; padding:.5em 1em; border-bottom:1px solid var(--line); }
header h1 { font-size:1em; margin:0; font-weight:600; }
header .where { color:var(--user); }
header .hint { color:var(--dim); margin-left:auto; }
button { background:var(--pane); color:var(--fg); border:1px solid var(--line); border-radius:4px; font:inherit; padding:.1em .6em; cursor:pointer; }
main { flex:1; display:grid; grid-template-columns: 3fr 2fr; grid-template-rows: auto 1fr auto; gap:8px; padding:8px; min-height:0; }
section { background:var(--pane); border:1px solid var(--line); border-radius:6px; overflow:auto; min-height:0; }
section h2 { position:sticky; top:0; background:var(--pane); margin:0; padding:.35em .7em; font-size:.85em; color:var(--dim); border-bottom:1px solid var(--line); text-transform:lowercase; }
#transcript { grid-row: 1 / span 3; }
.body { padding:.4em .7em; }
.entry { margin:.45em 0; white-space:pre-wrap; word-wrap:break-word; }
.entry .who { font-weight:700; display:block; }
.user .who { color:var(--user); } .assistant .who { color:var(--ai); } .tool .who { color:var(--tool); } .note { color:var(--note); }
.tool .text { color:var(--dim); } .error .who { color:var(--bad); }
.call { color:var(--tool); }
.brought { border-left:3px solid var(--user); padding-left:.6em; }
.divider { color:var(--user); border-top:1px dashed var(--user); margin-top:.8em; padding-top:.3em; font-size:.85em; }
summary { cursor:pointer; color:var(--dim); }
pre { margin:0; white-space:pre-wrap; word-wrap:break-word; }
ul { list-style:none; margin:0; padding:0; }
li { padding:.15em 0; } li .meta { color:var(--dim); }
li.active .name { color:var(--ai); font-weight:700; }
.empty { color:var(--dim); font-style:italic; }
</style>
</head>
<body>
<header>
<h1>{{TITLE}}</h1>
<button id="prev" title="previous call (← or [)">←</button>
<span class="where" id="where"></span>
<button id="next" title="next call (→ or ])">→</button>
<span class="hint">← → or [ ] step through the model calls · Home End</span>
</header>
<main>
<section id="transcript"><h2>transcript</h2><div class="body"></div></section>
<section id="loaded"><h2>loaded skills</h2><div class="body"></div></section>
<section id="context"><h2>&lt;current_context&gt;</h2><div class="body"></div></section>
<section id="tools"><h2>tools</h2><div class="body"></div></section>
</main>
<script id="data" type="application/json">{{DATA}}</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const F = D.frames;
let cur = 0;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function pane(id) { const b = document.querySelector("#" + id + " .body"); b.replaceChildren(); return b; }
function entry(e) {
  const d = el("div", "entry " + e.kind + (e.is_error ? " error" : ""));
  if (e.kind === "note") { d.textContent = "· " + e.text; return d; }
  let who = e.kind === "user" ? "› you" : e.kind === "assistant" ? "● assistant" : "← " + e.tool_name + (e.is_error ? " (error)" : "");
  d.appendChild(el("span", "who", who));
  const lines = e.text ? e.text.split("\n") : [];
  if (e.kind === "tool" && lines.length > 12) {
    // a long result folds, so the conversation stays readable
    const det = el("details");
    det.appendChild(el("summary", "text", lines[0] + " … (" + lines.length + " lines)"));
    det.appendChild(el("span", "text", e.text));
    d.appendChild(det);
  } else if (e.text) d.appendChild(el("span", "text", e.text));
  for (const c of e.tool_calls || []) d.appendChild(el("div", "call", "→ " + c.name + " " + c.arguments));
  return d;
}
function show(i) {
  if (F.length === 0) {
    document.getElementById("where").textContent = "no model call";
    const t = pane("transcript");
    for (const e of D.entries) t.appendChild(entry(e));
    return;
  }
  cur = Math.max(0, Math.min(F.length - 1, i));
  const f = F[cur];
  document.body.dataset.call = String(cur + 1);
  document.getElementById("where").textContent = "call " + (cur + 1) + "/" + F.length + " · turn " + f.turn;
  const t = pane("transcript");
  D.entries.slice(0, f.before).forEach(e => t.appendChild(entry(e)));
  const brought = D.entries.slice(f.before, f.until);
  t.appendChild(el("div", "divider", "call " + (cur + 1) + " goes out" + (brought.length ? "; it brought:" : "")));
  const b = el("div", "brought");
  brought.forEach(e => b.appendChild(entry(e)));
  t.appendChild(b);
  b.scrollIntoView({block: "end"});
  const l = pane("loaded");
  if (f.loaded.length === 0) l.appendChild(el("div", "empty", "none"));
  const ul = el("ul");
  f.loaded.forEach((s, k) => {
    const li = el("li", k === 0 && !s.preload ? "active" : "");
    li.appendChild(el("span", "name", (k === 0 && !s.preload ? "★ " : "  ") + s.name));
    li.appendChild(el("span", "meta", (s.version ? " v" + s.version : "") + " · " + s.tokens + " tok · " + (s.preload ? "preload" : "by " + s.by)));
    ul.appendChild(li);
  });
  l.appendChild(ul);
  const c = pane("context");
  c.appendChild(f.context ? el("pre", "", f.context) : el("div", "empty", "no <current_context> in this request"));
  const tl = pane("tools");
  const tu = el("ul");
  f.tools.forEach(x => { const li = el("li"); li.appendChild(el("span", "name", x.name)); if (x.description) li.appendChild(el("span", "meta", " · " + x.description)); tu.appendChild(li); });
  if (f.tools.length === 0) tl.appendChild(el("div", "empty", "none"));
  tl.appendChild(tu);
  const want = "#call=" + (cur + 1);
  if (location.hash !== want) { try { history.replaceState(null, "", want); } catch (e) {} }
}
function fromHash() {
  const m = /call=(\d+)/.exec(location.hash);
  return m ? parseInt(m[1], 10) - 1 : 0;
}
document.addEventListener("keydown", ev => {
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const k = ev.key;
  if (k === "ArrowRight" || k === "]") show(cur + 1);
  else if (k === "ArrowLeft" || k === "[") show(cur - 1);
  else if (k === "Home") show(0);
  else if (k === "End") show(F.length - 1);
  else return;
  ev.preventDefault();
});
document.getElementById("prev").onclick = () => show(cur - 1);
document.getElementById("next").onclick = () => show(cur + 1);
window.addEventListener("hashchange", () => show(fromHash()));
show(fromHash());
</script>
</body>
</html>
`
