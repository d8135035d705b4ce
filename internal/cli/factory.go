package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/logfile"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/sandbox"
	"github.com/clawdcode/clawdcode/internal/secrets"
	"github.com/clawdcode/clawdcode/internal/sessionsync"
	"github.com/clawdcode/clawdcode/internal/skills"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/telemetry"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Cache sizing for the process-wide CacheStore (token counts, tool
// results, file contents): enough for a long session, short-lived enough
// that a file edited outside clawdcode is not served stale for long.
const (
	cacheEntries = 4096
	cacheTTL     = 10 * time.Minute
)

// Factory hands out the dependencies commands need, each built on first
// use, so that --version, completion and the sessions commands never build
// an LLM client, a cache or a tokenizer. Safe for concurrent use.
type Factory struct {
	IO *iostreams.IOStreams

	// Getenv, Getwd and Home are the process's environment, working
	// directory and CLAWDCODE_HOME; tests replace them.
	Getenv func(string) string
	Getwd  func() (string, error)
	Home   func() (string, error)
	// HTTPClient is handed to the LLM client (nil = its default).
	HTTPClient *http.Client

	home    lazy[string]
	store   lazy[*storage.Store]
	project lazy[*storage.Project]
	client  lazy[*llm.Client]
	cache   lazy[*storage.CacheStore]
	cmds    lazy[*slash.Registry]
	logger  lazy[*slog.Logger]
	config  lazy[*config.Config]
	perms   lazy[*tools.Permissions]
	sandbox lazy[*sandbox.Sandbox]
	// telemetry is OpenTelemetry export, started on first use when on
	// (telemetry.go); nil when off.
	telemetry lazy[*telemetry.Telemetry]
	// configFlags are the command line's settings, given to the
	// configuration's first resolution (ResolveConfig).
	configFlags config.Flags
	// trustProject decides on the project file's risky keys
	// (config.Sources.TrustProject), set by the root command
	// (projectTrust); unset, only a yes on record trusts the file.
	trustProject func(*config.File) bool
	// projectDistrusted is set when the project file is not trusted on
	// record: declined, never answered, or trusted by --trust-project for
	// this run only.
	projectDistrusted atomic.Bool
	// trustFlag is --trust-project and trustCanAsk whether a trust
	// question can be put (the REPL on a terminal), for the project's
	// skills (Skills).
	trustFlag, trustCanAsk bool
	skills                 lazy[*skills.Set]
	// addDirs are --add-dir's directories, absolute: the permissions and
	// the sandbox take them.
	addDirs []string

	// redactor is the run's secrets.Redactor, set once the store is built
	// and again once the configuration names the key's variable: the log
	// and the error printed pass through it as session lines do.
	redactor atomic.Pointer[secrets.Redactor]

	// replOwnsInterrupt is set once the REPL runs: it handles Ctrl-C
	// itself, so SIGINT must no longer cancel the whole run.
	replOwnsInterrupt atomic.Bool

	// autoSync is the run's background push of each turn ([sync] auto),
	// nil when it is off; Run gives it a bounded moment at exit.
	autoSync atomic.Pointer[sessionsync.Auto]

	// indexErr is why index.json could not be written, said after the
	// run's own error (see Run).
	indexMu  sync.Mutex
	indexErr error

	// extraMCP are MCP servers a front end adds to the configured ones,
	// and engineExtras what it adds to the engine's Config (an editor's
	// servers, buffers and terminal: `clawdcode acp`, per session).
	extraMCP     []mcphost.ServerConfig
	engineExtras func(*agent.Config)
}

// forDir is a factory for the project at dir (an editor's session's
// directory): the same environment, store, log and cache, and its own
// configuration, permissions and commands, those of dir's project.
func (f *Factory) forDir(dir string) *Factory {
	sub := &Factory{IO: f.IO, Getenv: f.Getenv, Home: f.Home, HTTPClient: f.HTTPClient,
		Getwd: func() (string, error) { return dir, nil }, configFlags: f.configFlags}
	sub.redactor.Store(f.redactor.Load())
	_, _ = sub.home.get(f.HomeDir)
	_, _ = sub.store.get(f.Store)
	_, _ = sub.logger.get(func() (*slog.Logger, error) { return f.Logger(), nil })
	_, _ = sub.cache.get(func() (*storage.CacheStore, error) { return f.Cache(), nil })
	_, _ = sub.telemetry.get(func() (*telemetry.Telemetry, error) { return f.Telemetry(), nil })
	return sub
}

// NewFactory returns a factory over the process's environment.
func NewFactory(ios *iostreams.IOStreams) *Factory {
	return &Factory{IO: ios, Getenv: os.Getenv, Getwd: os.Getwd, Home: storage.Home}
}

// lazy is a value built once on first use.
type lazy[T any] struct {
	once  sync.Once
	v     T
	err   error
	built atomic.Bool
}

func (l *lazy[T]) get(build func() (T, error)) (T, error) {
	l.once.Do(func() {
		l.v, l.err = build()
		l.built.Store(true)
	})
	return l.v, l.err
}

// done reports whether the value was built (without building it).
func (l *lazy[T]) done() bool { return l.built.Load() }

// HomeDir is CLAWDCODE_HOME (default ~/.clawdcode).
func (f *Factory) HomeDir() (string, error) {
	return f.home.get(func() (string, error) {
		h, err := f.Home()
		if err != nil {
			return "", err
		}
		return filepath.Abs(h)
	})
}

// Store is the session store rooted at CLAWDCODE_HOME.
func (f *Factory) Store() (*storage.Store, error) {
	return f.store.get(func() (*storage.Store, error) {
		home, err := f.HomeDir()
		if err != nil {
			return nil, err
		}
		if err := storage.CheckHome(home); err != nil {
			return nil, err // a runtime error (exit 1), as any unusable home is
		}
		st := storage.NewStore(home)
		st.SetWarn(warnTo(f.IO.ErrOut))
		// Nothing stored holds a credential of this environment, whoever
		// quotes it (a tool's output, a server's error in a summary).
		red := secrets.FromEnviron(os.Environ(), nil, strings.TrimSpace(f.Getenv("OPENAI_API_KEY")))
		f.redactor.Store(red)
		st.SetRedactor(red)
		// An index that cannot be written fails nothing (it is a cache
		// of the session files), but the user should hear of it once —
		// after the error that made the run fail, which on a full disk
		// is the cause of both.
		st.SetIndexWarn(func(err error) {
			f.indexMu.Lock()
			defer f.indexMu.Unlock()
			f.indexErr = err
		})
		return st, nil
	})
}

// Project is the project of the working directory.
func (f *Factory) Project() (*storage.Project, error) {
	return f.project.get(func() (*storage.Project, error) {
		s, err := f.Store()
		if err != nil {
			return nil, err
		}
		wd, err := f.Getwd()
		if err != nil {
			return nil, err
		}
		return s.Project(wd)
	})
}

// ResolveConfig resolves the configuration with the command line's
// settings: the root command calls it once, before anything asks Config.
func (f *Factory) ResolveConfig(flags config.Flags) (*config.Config, error) {
	f.configFlags = flags
	return f.Config()
}

// Config is the configuration (internal/config: flags, environment, the
// project's and the user's config.toml, defaults), resolved once. Unknown
// keys are warned about on stderr.
func (f *Factory) Config() (*config.Config, error) {
	return f.config.get(func() (*config.Config, error) {
		home, err := f.HomeDir()
		if err != nil {
			return nil, err
		}
		p, err := f.Project()
		if err != nil {
			return nil, err
		}
		trust := f.trustProject
		if trust == nil {
			trust = f.projectTrust(context.Background(), false, false)
		}
		cfg, err := config.Resolve(config.Sources{
			UserFile:    config.UserFile(home),
			ProjectFile: config.ProjectFile(p.Root),
			Getenv:      f.Getenv,
			Flags:       f.configFlags,
			Warn:        warnTo(f.IO.ErrOut),

			TrustProject: trust,
		})
		if err != nil {
			return nil, err
		}
		// Now the key's variable is known, whatever its name: it is kept
		// out of /proc and redacted from what is stored like the rest.
		if cfg.APIKeyEnv != config.DefaultAPIKeyEnv {
			_ = secrets.Hide(cfg.APIKeyEnv) // Protect already warned if /proc cannot be rewritten
		}
		red := secrets.FromEnviron(os.Environ(), []string{cfg.APIKeyEnv}, cfg.APIKey)
		f.redactor.Store(red)
		if st, err := f.Store(); err == nil {
			st.SetRedactor(red)
		}
		return cfg, nil
	})
}

// Permissions is the run's permission policy, built once: the rules of
// opts (flags and configuration files), --dangerously-skip-permissions,
// the mode to start in (--permission-mode),
// the terminal's asker (nil in -p), and the project's config file as the
// place an "always for this project" answer is saved.
func (f *Factory) Permissions(opts *RootOptions, asker tools.Asker) (*tools.Permissions, error) {
	return f.perms.get(func() (*tools.Permissions, error) {
		p, err := f.Project()
		if err != nil {
			return nil, err
		}
		projectFile := config.ProjectFile(p.Root)
		// The policy and the sandbox ask each other: whether a command is
		// contained, and whether plan mode is on and which hosts rules
		// allow. sb is set before the policy is handed out.
		var sb *sandbox.Sandbox
		perms := tools.NewPermissions(tools.PermissionsConfig{
			Contained: func() bool { return sb.Contained() },
			Root:      p.Root,
			Allow:     opts.Allow,
			Deny:      opts.Deny,
			SkipAll:   opts.SkipPermissions,
			// resolveMode chose the starting mode: bypass for the skip
			// flag alone, the named one when --permission-mode was given.
			Mode:      opts.Mode,
			ModeGiven: true,
			Asker:     asker,
			Save: func(r tools.Rule) error {
				if err := config.SaveRule(projectFile, r); err != nil {
					return err
				}
				f.trustedChange(projectFile)
				return nil
			},
			Warn: warnTo(f.IO.ErrOut),
			// The project's settings grant permissions and run hooks: a
			// model allowed to Write must not rewrite them.
			Sensitive: []string{filepath.Dir(projectFile)},
			Dirs:      f.addDirs,
		})
		sb, err = f.Sandbox(perms)
		if err != nil {
			return nil, err
		}
		return perms, nil
	})
}

// LLM is the chat-completions client for the configured base URL
// (OPENAI_BASE_URL, else base_url) and the key in the variable api_key_env
// names (default OPENAI_API_KEY), with CLAWDCODE_TIMEOUT as its idle
// timeout. With the default endpoint and no key it fails
// (llm.ErrMissingAPIKey) without touching the network; an unreadable
// CLAWDCODE_TIMEOUT is a usage error.
func (f *Factory) LLM() (*llm.Client, error) {
	return f.client.get(func() (*llm.Client, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		idle, err := parseTimeout(f.Getenv("CLAWDCODE_TIMEOUT"))
		if err != nil {
			return nil, err
		}
		c, err := llm.New(llm.Config{
			Logger:      f.Logger(),
			BaseURL:     cfg.BaseURL,
			APIKey:      cfg.APIKey,
			HTTPClient:  f.HTTPClient,
			IdleTimeout: idle,
			WireAPI:     cfg.WireAPI,
		})
		if errors.Is(err, llm.ErrMissingAPIKey) && cfg.APIKeyEnv != config.DefaultAPIKeyEnv {
			err = &rewordedError{err: err, msg: fmt.Sprintf("%s is not set (api_key_env names it): the default endpoint %s "+
				"needs an API key (set OPENAI_BASE_URL or base_url to use a local server without one)", cfg.APIKeyEnv, llm.DefaultBaseURL)}
		}
		return c, err
	})
}

// parseTimeout reads CLAWDCODE_TIMEOUT: a Go duration ("90s", "2m") or a
// number of seconds ("90", "1.5"). Empty is 0, the client's default.
func parseTimeout(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		secs, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(secs) || math.IsInf(secs, 0) || secs > maxTimeout.Seconds() {
			return 0, &UsageError{
				Err:   fmt.Errorf("invalid CLAWDCODE_TIMEOUT %q", v),
				Hints: []string{`want a duration such as "90s" or "2m", or a number of seconds`},
			}
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, usageErrorf("invalid CLAWDCODE_TIMEOUT %q: must be more than zero", v)
	}
	return d, nil
}

// maxTimeout keeps a number of seconds from overflowing a Duration.
const maxTimeout = 24 * time.Hour

// Cache is the process-wide CacheStore; it owns a goroutine, so it is
// created once and only by commands that talk to a model.
func (f *Factory) Cache() *storage.CacheStore {
	c, _ := f.cache.get(func() (*storage.CacheStore, error) {
		return storage.NewCacheStore(cacheEntries, cacheTTL), nil
	})
	return c
}

// Logger is the diagnostic log under CLAWDCODE_HOME/logs (CLAWDCODE_LOG
// sets its level or turns it off). It is opened only by commands that
// talk to a model; one that cannot be opened discards, silently: the log
// is for diagnosing, never a reason to fail or to fill the terminal.
func (f *Factory) Logger() *slog.Logger {
	l, _ := f.logger.get(func() (*slog.Logger, error) {
		home, err := f.HomeDir()
		if err != nil {
			return logfile.Discard(), nil
		}
		// The file stays open until the process exits.
		l, _, _ := logfile.OpenRedacted(home, f.Getenv("CLAWDCODE_LOG"), f.redact)
		return l, nil
	})
	return l
}

// about is what /status and /config show of the run beyond the engine.
func (f *Factory) about(cfg *config.Config, p *storage.Project, sb *sandbox.Sandbox) agent.About {
	a := agent.About{BaseURL: serverBase(cfg), LogFile: f.LogFile(), Settings: cfg.Settings(), Rules: cfg.Rules,
		ProjectFile: config.ProjectFile(p.Root), Sandbox: sb.Describe, Contained: sb.Contained,
		Trust: f.trustCheck(cfg, p.Root),
		CheckServer: func(ctx context.Context, model string) llm.ServerCheck {
			return llm.CheckServer(ctx, llm.ProbeConfig{BaseURL: serverBase(cfg), APIKey: cfg.APIKey, HTTPClient: f.HTTPClient}, model)
		}}
	if home, err := f.HomeDir(); err == nil {
		a.UserFile = config.UserFile(home)
	}
	return a
}

// LogFile is the path of the diagnostic log, "" when logging is off.
func (f *Factory) LogFile() string {
	home, err := f.HomeDir()
	if _, on := logfile.Level(f.Getenv("CLAWDCODE_LOG")); !on || err != nil {
		return ""
	}
	return filepath.Join(home, "logs", logfile.Name)
}

// ServerWindow asks the configured server for model's context window
// (CONTRACT §8) — once per base URL and model, the answer kept in
// CLAWDCODE_HOME/servers.json — and says where it came from. ok is false
// when the server does not say; cached is set when the answer came from
// servers.json, not from the server now. A window outside
// llm.PlausibleWindow's range is said once and neither used nor cached,
// and one cached by an older clawdcode is asked again.
func (f *Factory) ServerWindow(ctx context.Context, cfg *config.Config, model string) (tokens int, source string, cached, ok bool) {
	st, err := f.Store()
	if err != nil {
		return 0, "", false, false
	}
	base := serverBase(cfg)
	now := time.Now()
	w, cached := st.ServerWindow(base, model, now)
	if cached && w.Tokens > 0 && !llm.PlausibleWindow(w.Tokens) {
		cached = false
	}
	if !cached {
		got, err := llm.ProbeWindow(ctx, llm.ProbeConfig{BaseURL: base, APIKey: cfg.APIKey, HTTPClient: f.HTTPClient}, model)
		if err != nil {
			return 0, "", false, false // the run was cancelled
		}
		f.Logger().Info("server window", "model", model, "tokens", got.Tokens, "source", got.Source, "ignored", got.Ignored, "ms", time.Since(now).Milliseconds())
		if got.Tokens == 0 && got.Ignored != 0 {
			warnTo(f.IO.ErrOut)(fmt.Sprintf("the server says %s has a context window of %d tokens; not believing it (outside %d to %d), so it is asked again next run: set --context-window to stop this",
				model, got.Ignored, llm.MinWindow, llm.MaxWindow))
			return 0, "", false, false
		}
		w = storage.ServerWindow{Tokens: got.Tokens, Source: got.Source, Checked: now}
		if err := st.SetServerWindow(base, model, w); err != nil {
			f.Logger().Warn("server window not cached", "error", err.Error())
		}
	}
	if w.Tokens <= 0 {
		return 0, "", cached, false
	}
	return w.Tokens, "the server (" + w.Source + ")", cached, true
}

// ForgetServerWindow drops the cached answer about model's window, after
// it made a run fail, so that the server is asked again.
func (f *Factory) ForgetServerWindow(cfg *config.Config, model string) {
	st, err := f.Store()
	if err != nil {
		return
	}
	if err := st.ForgetServerWindow(serverBase(cfg), model); err != nil {
		f.Logger().Warn("server window not forgotten", "error", err.Error())
	}
}

// serverBase is the base URL requests go to, the key of servers.json.
func serverBase(cfg *config.Config) string {
	if cfg.BaseURL == "" {
		return llm.DefaultBaseURL
	}
	return cfg.BaseURL
}

// Hooks is the runner of the configured hooks (nil when there are none),
// reporting a hook's failure as a warning on stderr.
func (f *Factory) Hooks(cfg *config.Config, root string) *hooks.Runner {
	if len(cfg.Hooks) == 0 {
		return nil
	}
	return hooks.New(cfg.Hooks, root, childEnv(cfg), warnTo(f.IO.ErrOut))
}

// childEnv is the environment of the programs clawdcode starts besides
// tools' commands (hooks, MCP servers): the process's without credentials,
// except those the configuration passes through, and without the API key's
// variable whatever its name (secrets.ChildEnv).
func childEnv(cfg *config.Config) []string {
	return secrets.ChildEnv(os.Environ(), cfg.EnvPassthrough, []string{cfg.APIKeyEnv})
}

// StartMCP starts connecting to the configured MCP servers, all at once
// and in the background (each bounded by mcphost.DefaultStartTimeout);
// one that dies, or that Settle gives up on, is reported once on stderr
// and the run goes on without it.
func (f *Factory) StartMCP(ctx context.Context, cfg *config.Config, root string) *mcphost.Host {
	servers := make([]mcphost.ServerConfig, 0, len(cfg.MCPServers)+len(f.extraMCP))
	for name, s := range cfg.MCPServers {
		servers = append(servers, mcphost.ServerConfig{Name: name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers})
	}
	// A front end's servers join the configured ones; a name the
	// configuration has already stays the configuration's.
	for _, s := range f.extraMCP {
		if _, dup := cfg.MCPServers[s.Name]; !dup {
			servers = append(servers, s)
		}
	}
	cache := ""
	if home, err := f.HomeDir(); err == nil {
		cache = filepath.Join(home, "mcp-tools.json")
	}
	return mcphost.Start(ctx, servers, mcphost.Options{
		Dir:    root,
		Env:    childEnv(cfg),
		Warn:   warnTo(f.IO.ErrOut),
		Logger: f.Logger(),
		Cache:  cache,
	})
}

// Commands is the slash-command registry: the built-in commands, the
// custom ones of the project and of CLAWDCODE_HOME (CONTRACT §9), whose
// problems are reported once on stderr, and the skills offered (Skills:
// the REPL's trust question about them is put before, when the engine
// is built).
func (f *Factory) Commands() *slash.Registry {
	r, _ := f.cmds.get(func() (*slash.Registry, error) {
		reg := slash.Default()
		home, herr := f.HomeDir()
		wd, werr := f.Getwd()
		if herr != nil || werr != nil {
			return reg, nil
		}
		warn := warnTo(f.IO.ErrOut)
		for _, w := range reg.LoadCustom(slash.CustomDirs(wd, home)) {
			warn(w)
		}
		// The skills offered are commands too (/name), after the rest.
		reg.AddSkills(f.Skills(context.Background()).List())
		return reg, nil
	})
	return r
}

// handOverInterrupt tells the signal handler that the REPL now owns SIGINT.
func (f *Factory) handOverInterrupt() { f.replOwnsInterrupt.Store(true) }

// printIndexWarning says, once the run's outcome is printed, that the index
// could not be written — unless the run failed for the same reason (a full
// disk), which its error has already said.
func (f *Factory) printIndexWarning(runErr error) {
	f.indexMu.Lock()
	err := f.indexErr
	f.indexErr = nil
	f.indexMu.Unlock()
	if err == nil {
		return
	}
	var errno syscall.Errno
	if runErr != nil && errors.As(err, &errno) && errors.Is(runErr, errno) {
		return
	}
	warnTo(f.IO.ErrOut)(storage.IndexWarning(err))
}

// rewordedError says err in other words; errors.Is still sees err.
type rewordedError struct {
	err error
	msg string
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }

// redact takes the run's credentials out of b (see secrets.Redactor).
func (f *Factory) redact(b []byte) []byte { return f.redactor.Load().Redact(b) }

// redactString is redact for a string.
func (f *Factory) redactString(s string) string { return f.redactor.Load().String(s) }
