package cli

import (
	"maps"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// mcpConfigLimit bounds an --mcp-config file: a few servers' settings.
const mcpConfigLimit = 1 << 20

// readMCPConfigs reads the --mcp-config values, each a file or JSON text
// (it starts with "{"), into one set of servers; a later value wins a
// name. A value that cannot be read or parsed is a usage error naming it.
func readMCPConfigs(values []string) (map[string]config.MCPServer, error) {
	if len(values) == 0 {
		return nil, nil
	}
	all := map[string]config.MCPServer{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		source, data := "JSON text", []byte(v)
		if !strings.HasPrefix(v, "{") {
			source = v
			b, err := storage.ReadRegular(v)
			if err != nil {
				return nil, usageErrorf("--mcp-config %s: %v", v, err)
			}
			if len(b) > mcpConfigLimit {
				return nil, usageErrorf("--mcp-config %s: larger than %d KiB", v, mcpConfigLimit>>10)
			}
			data = b
		}
		servers, err := config.ParseMCPJSON(data)
		if err != nil {
			return nil, usageErrorf("--mcp-config %s: %v", source, err)
		}
		maps.Copy(all, servers)
	}
	return all, nil
}

// resolveDirs makes each --add-dir absolute (relative to the working
// directory) and checks it is a directory; the factory keeps them for the
// permissions and the sandbox.
func (o *RootOptions) resolveDirs(f *Factory) error {
	if len(o.AddDirs) == 0 {
		return nil
	}
	wd, err := f.Getwd()
	if err != nil {
		return err
	}
	for i, d := range o.AddDirs {
		abs, err := agent.ResolveDir(wd, d)
		if err != nil {
			return usageErrorf("--add-dir %v", err)
		}
		o.AddDirs[i] = abs
	}
	f.addDirs = o.AddDirs
	return nil
}
