package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/clawdcode/clawdcode/internal/skills"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// The definition files a user or a repository drops in — Agent Skills
// (internal/skills) and subagent types (agents.go) — are read again when
// they change, at the start of a turn: a new skill or agent file is
// offered from the next message on, without a restart, and the tools of
// one turn never change under it.

// builtinTools is the head of the tools offered: the contract's, then
// Skill when there are skills, then Task, which comes last and needs the
// rest (a subagent gets the tools before it, or fewer, never Task).
func (e *Engine) builtinTools() []tools.Tool {
	out := slices.Clip(e.base)
	if len(e.cfg.Skills.List()) > 0 {
		out = append(out, e.skills.tool)
	}
	return append(out, tools.NewTask(&e.tasks, e.tasks.offered()))
}

// refreshDefinitions reads the skills and the subagent types again when
// their files changed; the tools they make are offered from the next
// offer on (Engine.offer, when the turn's MCP join follows).
func (e *Engine) refreshDefinitions() {
	if e.env == nil {
		return
	}
	e.cfg.Skills.Refresh()
	e.tasks.refresh(e.cfg.Warn)
	e.builtin = e.builtinTools()
}

// Skills is the engine's part over the Agent Skills offered (/skills),
// and the permissions a skill in use grants.
type Skills struct {
	e    *Engine
	tool *skills.Tool

	// granted are the rules the skills used in the running turn allowed
	// (allowed-tools), taken back when it ends; subagents grant too.
	mu      sync.Mutex
	granted []tools.Rule
}

// List is the skills offered now.
func (s *Skills) List() []skills.Skill { return s.e.cfg.Skills.List() }

// Ignored are the project's skills not offered (its trust), for /skills.
func (s *Skills) Ignored() []skills.Skill {
	if s.e.cfg.Skills == nil {
		return nil
	}
	return s.e.cfg.Skills.Ignored
}

// grant lets the tools a skill in use names (allowed-tools) run without
// asking until the turn ends: rules of the session that endTurn takes
// back. A deny rule still wins, and plan mode still refuses what it
// refuses. It returns the line the model reads about it.
func (s *Skills) grant(_ context.Context, sk skills.Skill) string {
	p := s.e.cfg.Permissions
	if p == nil {
		return ""
	}
	rules, err := tools.ParseRules(strings.Join(sk.AllowedTools, ","))
	if err != nil {
		return fmt.Sprintf("(Its allowed-tools are not granted: %v; those calls ask as usual.)", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, r := range rules {
		names = append(names, r.String())
		if slices.ContainsFunc(p.SessionRules(), func(have tools.Rule) bool { return have.String() == r.String() }) {
			continue
		}
		p.AddSessionRule(r)
		s.granted = append(s.granted, r)
	}
	return "While this turn lasts, these run without asking (the skill's allowed-tools): " + strings.Join(names, ", ")
}

// endTurn takes back what grant allowed during the turn.
func (s *Skills) endTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.granted {
		s.e.cfg.Permissions.RemoveSessionRule(r)
	}
	s.granted = nil
}
