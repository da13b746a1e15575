package config

import (
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/event"
)

func TestConfigParsesEverySectionAndResolvesPaths(t *testing.T) {
	text := `
skills_dirs = ["skills", "/abs/skills"]
tools_dirs = ["tools"]
[model]
name = "gpt-4o-mini"
base_url = "http://localhost:11434/v1"
idle_timeout = "90s"
[agent]
prompt = "Be helpful."
[[agent.tools]]
name = "weather"
version = 2
approval = "never"
input = { units = "metric", days = 3 }
[approval]
run_checks = "always-deny"
[session]
max_loaded_skills = 5
delivery = "tool-result"
[[skills]]
name = "a"
version = 2
preload = true
[[skills]]
name = "b"
version = "1.0.0"
[mcp.servers.files]
command = "./bin/files-server"
args = ["--root", "."]
env = { TOKEN = "${GITHUB_TOKEN}" }
[mcp.servers.remote]
url = "http://127.0.0.1:9/mcp"
`
	cfg, err := Parse([]byte(text), "/ws/skillet.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SkillsDirs[0] != filepath.Join("/ws", "skills") || cfg.SkillsDirs[1] != "/abs/skills" || cfg.ToolsDirs[0] != "/ws/tools" {
		t.Fatalf("dirs %v %v", cfg.SkillsDirs, cfg.ToolsDirs)
	}
	if cfg.MCP.Servers["files"].Command != "/ws/bin/files-server" {
		t.Fatalf("server command %q should be relative to the config", cfg.MCP.Servers["files"].Command)
	}
	if cfg.Session.MaxLoadedSkills != 5 || cfg.Session.Delivery != event.DeliveryToolResult || cfg.Session.ListSize != 30 {
		t.Fatalf("session %+v: set keys applied, others at defaults", cfg.Session)
	}
	refs := cfg.Refs()
	if refs[0].Version != "2" || !refs[0].Preload || refs[1].Version != "1.0.0" {
		t.Fatalf("refs %+v", refs)
	}
	if cfg.Agent.Tools[0].Input["days"] != int64(3) || cfg.Model.IdleTimeout.Seconds() != 90 {
		t.Fatalf("agent tool %+v, model %+v", cfg.Agent.Tools[0], cfg.Model)
	}
}

func TestConfigReportsEveryProblemNamingItsKey(t *testing.T) {
	text := `
[session]
max_loaded_skills = 0
delivery = "sideways"
max_loded = 3
[approval]
x = "maybe"
[[agent.tools]]
approval = "sometimes"
[[skills]]
version = 1.5
[mcp.servers.both]
command = "a"
url = "http://b"
[model]
idle_timeout = "soon"
`
	_, err := Parse([]byte(text), "skillet.toml")
	if err == nil {
		t.Fatal("bad config accepted")
	}
	// a TOML value of the wrong kind is reported by the decoder first
	if !strings.Contains(err.Error(), "idle_timeout") {
		t.Fatalf("error should name model.idle_timeout: %v", err)
	}
	text = strings.Replace(text, `idle_timeout = "soon"`, "", 1)
	_, err = Parse([]byte(text), "skillet.toml")
	for _, want := range []string{"max_loaded_skills", "delivery", "max_loded", "approval.x", "agent.tools[0]", "skills[0]", "mcp.servers.both"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error should name %q: %v", want, err)
		}
	}
}

func TestConfigSyntaxErrorNamesTheFile(t *testing.T) {
	_, err := Parse([]byte("[session\nmax = "), "/ws/skillet.toml")
	if err == nil || !strings.Contains(err.Error(), "/ws/skillet.toml") {
		t.Fatalf("err = %v", err)
	}
}

func TestSettingsSetAndGet(t *testing.T) {
	s := event.DefaultSettings()
	for _, k := range event.SettingKeys() {
		v, err := s.Get(k)
		if err != nil || event.SettingDoc(k) == "" {
			t.Fatalf("%s: %v", k, err)
		}
		if err := s.Set(k, v); err != nil {
			t.Fatalf("round trip %s=%s: %v", k, v, err)
		}
	}
	if err := s.Set("list_size", "7"); err != nil || s.ListSize != 7 {
		t.Fatal(err)
	}
	for _, bad := range [][2]string{{"nope", "1"}, {"max_tool_calls", "0"}, {"freeze_prompt", "perhaps"}, {"delivery", "sideways"}} {
		if err := s.Set(bad[0], bad[1]); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
	}
}
