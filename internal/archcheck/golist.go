package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// module is the module's packages as the build sees them.
type module struct {
	Path string // the module path
	Pkgs []pkg
}

// pkg is one package of the module: its path relative to the module
// ("internal/cli"), its files and its imports, test files apart.
type pkg struct {
	Rel     string
	Path    string // the import path
	Dir     string
	GoFiles []string
	Imports []string // import paths
}

// rel is path relative to the module ("" for one outside it).
func (m *module) rel(path string) string {
	if path == m.Path {
		return "."
	}
	rest, ok := strings.CutPrefix(path, m.Path+"/")
	if !ok {
		return ""
	}
	return rest
}

// listModule lists the module's packages under root.
func listModule(root string) (*module, error) {
	out, err := goList(root, "list", "-m", "-f", "{{.Path}}")
	if err != nil {
		return nil, err
	}
	m := &module{Path: strings.TrimSpace(string(out))}
	out, err = goList(root, "list", "-e", "-json=ImportPath,Dir,GoFiles,Imports", "./...")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir string
			GoFiles         []string
			Imports         []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read go list: %w", err)
		}
		m.Pkgs = append(m.Pkgs, pkg{Rel: m.rel(p.ImportPath), Path: p.ImportPath, Dir: p.Dir, GoFiles: p.GoFiles, Imports: p.Imports})
	}
	return m, nil
}

// exportData maps each package the given ones depend on to the file of
// its compiled export data (building what the cache lacks).
func exportData(root string, paths []string) (map[string]string, error) {
	args := append([]string{"list", "-e", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)
	out, err := goList(root, args...)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			files[path] = file
		}
	}
	return files, nil
}

func goList(root string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args[:1], " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
