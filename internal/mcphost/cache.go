package mcphost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// A run that must not wait for its servers at its first request (-p)
// still offers their tools there, the same ones from run to run: each
// server's tool list, as it last answered it, is kept in the cache file
// (Options.Cache, under CLAWDCODE_HOME) by the server's settings. A server
// not connected yet whose list is in the cache is offered with that list;
// calling one of its tools waits for the server (its start is bounded by
// StartTimeout). Only a server never seen answering is offered through
// MCPSearch and MCPCall (Lazy), which wait for it when first used. So a
// hung server holds no run that does not call it, and a request's tools
// depend on the settings and on what the servers answered before, never
// on how fast they answer now.

// cacheFile is the cache's content: by server fingerprint, its tools.
type cacheFile struct {
	Servers map[string]cacheEntry `json:"servers"`
}

type cacheEntry struct {
	Name  string      `json:"name"`
	Tools []*mcp.Tool `json:"tools"`
}

// fingerprint names a server's settings in the cache: a change to any of
// them (another command, argument, variable or URL) is another server.
// Values are hashed, never stored.
func fingerprint(c ServerConfig) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00%s\n", c.Name, c.Command, c.Args, c.URL)
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		fmt.Fprintf(h, "env %s=%s\n", k, c.Env[k])
	}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		fmt.Fprintf(h, "header %s=%s\n", k, c.Headers[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cacheMu serialises this process's updates of a cache file.
var cacheMu sync.Mutex

// readCache reads the cache at path; missing or unreadable, it is empty
// (it is only ever a head start).
func readCache(path string) cacheFile {
	var c cacheFile
	if path == "" {
		return c
	}
	if data, err := storage.ReadRegular(path); err == nil {
		_ = json.Unmarshal(data, &c)
	}
	return c
}

// remember keeps s's tool list in the cache when it changed. A failure
// to write only costs the next run its head start.
func (s *server) remember(list []*mcp.Tool) {
	path := s.host.opts.Cache
	if path == "" {
		return
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	c := readCache(path)
	key := fingerprint(s.cfg)
	old, _ := json.Marshal(c.Servers[key].Tools)
	now, _ := json.Marshal(list)
	if string(old) == string(now) {
		return
	}
	if c.Servers == nil {
		c.Servers = map[string]cacheEntry{}
	}
	c.Servers[key] = cacheEntry{Name: s.cfg.Name, Tools: list}
	data, err := json.Marshal(c)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		err = storage.WriteFileAtomic(path, data)
	}
	if err != nil {
		s.host.opts.Logger.Warn("mcp tool cache not written", "error", err.Error())
	}
}

// Offer is what a run that does not wait offers at a request (-p): the
// tools of the servers connected now, those of the servers still
// connecting whose lists the cache holds (a call waits for its server),
// and, when a server still connecting was never seen, MCPSearch and
// MCPCall over every server (Lazy, waiting at most wait when first used)
// — or that pair alone when onDemand says the tools would take too much
// of the window. A failed server offers nothing.
func (h *Host) Offer(wait time.Duration, onDemand func([]tools.Tool) bool) []tools.Tool {
	if h == nil {
		return nil
	}
	h.callWait.Store(int64(wait))
	var known []tools.Tool
	unseen := false
	for _, s := range h.servers {
		s.mu.Lock()
		list, state := s.tools, s.state
		if state == StateConnecting {
			list = s.cached
			unseen = unseen || list == nil
		}
		for _, t := range list {
			known = append(known, &mcpTool{srv: s, tool: t, name: ToolName(s.cfg.Name, t.Name)})
		}
		s.mu.Unlock()
	}
	known = tools.UniqueNames(known, h.warnName)
	if !unseen && !onDemand(known) {
		return known
	}
	h.lazyOnce.Do(func() { h.lazy = h.Lazy(wait) })
	if onDemand(known) {
		return h.lazy
	}
	return append(known, h.lazy...)
}

// ready waits until the server is done connecting (or ctx ends): a call
// to a tool offered from the cache before its server answered.
func (s *server) ready(ctx context.Context) {
	select {
	case <-s.done:
	case <-ctx.Done():
	}
}

// stillOffered reports whether name is a tool Tools offers once every
// server has answered or been given up (waiting at most the wait Offer
// was given, when one is still connecting): a tool offered before all had
// answered may turn out to share its name with another server's, and
// then neither may run (Tools, tools.UniqueNames).
func (h *Host) stillOffered(ctx context.Context, name string) bool {
	if wait := time.Duration(h.callWait.Load()); wait > 0 {
		for _, s := range h.servers {
			if s.current() == StateConnecting {
				h.Settle(ctx, wait)
				break
			}
		}
	}
	return slices.ContainsFunc(h.Tools(), func(t tools.Tool) bool { return t.Name() == name })
}
