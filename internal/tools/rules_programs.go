package tools

import (
	"regexp"
	"strings"
	"sync"
)

// What the permission rules know of the programs a command line names,
// in one table: how each reads its words, so that a rule sees the command
// a user would name (`git --no-pager log` is `git log`), the commands it
// runs (`timeout 5 rm x` runs rm) and what makes a rule too wide to hold
// (`go test -exec`, `git diff --output`).
//
// A program not in the table is read as plain: its words are its
// arguments, and the rules compare them as written.

// progKind is how a program reads the words after its options.
type progKind uint8

const (
	plainProg   progKind = iota
	subcommands          // its first operand names what it does: git log, go test, kubectl delete
	wrapper              // its operands (after fixed ones) are a command it runs: sudo, timeout, xargs
	shellProg            // a shell: it runs a -c string, a script file, or what stdin gives it
	interpreter          // runs code: an option's string, a script file, or what stdin gives it
)

// optKind is what one option does, for the rules.
type optKind uint8

const (
	optFlag       optKind = iota // no value
	optValue                     // a value: the next word, or attached (--opt=v, -ov)
	optNumber                    // an optional number: the next word only when it is one (make -j 4)
	optRuns                      // a value that is a program or a command it runs
	optRunsFlag                  // no value, and it runs a program of the configuration (git diff --ext-diff)
	optWrites                    // a value that names a file it writes
	optWritesRest                // no value, and it writes the files it names (find -delete)
	optShell                     // a value that is a command line a shell runs (flock -c, su -c)
	optCode                      // a value that is code of the interpreter (python -c, perl -e)
	optConfig                    // git -c: a key and a value (see gitConfig)
	optUndecided                 // what it runs is known only when it runs (env -S, git --config-env)
	optCommand                   // no value, and the first operand is a command line (bash -c)
	optStdin                     // no value, and the program is read from stdin (bash -s, python -)
	optAssign                    // a NAME=value word among the options (env's, make's)
	optModule                    // a value that names the program to run, and the options end (python -m)
)

// takesValue reports whether the option takes a value word.
func (k optKind) takesValue() bool {
	switch k {
	case optValue, optRuns, optWrites, optShell, optCode, optConfig, optUndecided, optModule:
		return true
	}
	return false
}

// program is one entry of the table.
type program struct {
	kind progKind
	// opts are the options read before its first operand (the global
	// options of a program with subcommands, a wrapper's own options).
	opts map[string]optKind
	// anywhere are options that matter wherever they stand (after the
	// subcommand too): those that run a program or write a file.
	anywhere map[string]optKind
	// sub are the options that matter of one subcommand.
	sub map[string]map[string]optKind
	// singleDash: long options take one dash (go's -exec, terraform's
	// -chdir=x, find's -exec); short ones do not cluster.
	singleDash bool
	// operands a wrapper reads before its command (timeout's duration,
	// flock's file, chroot's directory).
	operands int
	// assignments: NAME=value words stand among its options: a wrapper's
	// environment for its command (env, sudo), make's variables (which
	// may name the programs its recipes run).
	assignments bool
	// exact: "always" never grants a prefix of it: it runs other programs
	// (sed's e, awk's system, tee's files, find's -exec), or every use
	// destroys something. exactSub does so for some subcommands only.
	exact    bool
	exactSub map[string]bool
	// grammar is false for a shell whose command strings are not bash's
	// (zsh, fish): a deny rule cannot read them.
	otherGrammar bool
	// code, for awk and sed, judges the program text (see awkCode).
	code func(text string) (runs, writes bool)
}

// opts reads a table's option list: "NAME" is a flag, "NAME=" takes a
// value, "NAME=kind" and "NAME!kind" are a value or a flag of a kind
// (runs, writes, shell, code, config, undecided, num, command, stdin).
func opts(spec string) map[string]optKind {
	kinds := map[string]optKind{
		"": optValue, "runs": optRuns, "writes": optWrites, "shell": optShell, "code": optCode,
		"config": optConfig, "undecided": optUndecided, "num": optNumber, "module": optModule,
	}
	flags := map[string]optKind{"runs": optRunsFlag, "writes": optWritesRest, "command": optCommand, "stdin": optStdin}
	m := map[string]optKind{}
	for _, f := range strings.Fields(spec) {
		if name, kind, ok := strings.Cut(f, "="); ok {
			k, known := kinds[kind]
			if !known {
				panic("rules_programs: unknown option kind " + f)
			}
			m[name] = k
		} else if name, kind, ok := strings.Cut(f, "!"); ok {
			k, known := flags[kind]
			if !known {
				panic("rules_programs: unknown flag kind " + f)
			}
			m[name] = k
		} else {
			m[f] = optFlag
		}
	}
	return m
}

func subOpts(spec map[string]string) map[string]map[string]optKind {
	m := make(map[string]map[string]optKind, len(spec))
	for sub, s := range spec {
		m[sub] = opts(s)
	}
	return m
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Options several programs share.
const (
	shellOpts = "-c!command -s!stdin -o= +o= -i -l -e -x -u -v -n -a -f -h -m -b -C -E -T -p -P -r -k -t -B -H +e +x +u +v " +
		"--login --norc --noprofile --posix --restricted --noediting --verbose"
	goBuildOpts = "-exec=runs -toolexec=runs -vettool=runs -o=writes -coverprofile=writes -cpuprofile=writes " +
		"-memprofile=writes -blockprofile=writes -mutexprofile=writes -trace=writes -outputdir=writes -modfile=writes"
)

// programs is the table, by command name (its base name: /usr/bin/git is
// git). It is made when a rule first asks for it, not at every start of
// clawdcode (a --version, a listing): it is most of this package's init,
// about 0.2 MB in 1,000 allocations.
var programs = sync.OnceValue(func() map[string]*program {
	return map[string]*program{
		"git": {
			kind: subcommands,
			opts: opts("-C= -c=config --git-dir= --work-tree= --namespace= --exec-path=runs --config-env=undecided " +
				"--super-prefix= --list-cmds= --attr-source= --no-pager -P -p --paginate --bare --no-replace-objects " +
				"--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks " +
				"--no-advice --no-lazy-fetch"),
			anywhere: opts("--output=writes --output-directory=writes --ext-diff!runs --textconv!runs " +
				"--upload-pack=runs --receive-pack=runs --exec=runs"),
			sub: subOpts(map[string]string{
				"rebase": "-x=runs", "grep": "-O!runs --open-files-in-pager!runs", "format-patch": "-o=writes",
				"clone": "-u=runs -c=config --config=config --template=runs", "difftool": "-x=runs --extcmd=runs",
				"archive": "-o=writes", "send-email": "--sendmail-cmd=runs --smtp-server=runs --to-cmd=runs --cc-cmd=runs --header-cmd=runs",
			}),
			// Subcommands that write the configuration or run what they are
			// given: "always" for one use is no grant for the next.
			exactSub: set("config submodule bisect filter-branch hook difftool mergetool send-email instaweb daemon " +
				"remote credential worktree"),
		},
		"go": {
			kind: subcommands, singleDash: true,
			opts:     opts("-C="),
			anywhere: opts(goBuildOpts),
			sub:      subOpts(map[string]string{"env": "-w!runs -u!runs"}),
			exactSub: set("run generate tool get install"),
		},
		"cargo": {
			kind:     subcommands,
			opts:     opts("--manifest-path= -C= --config=runs -Z= --color= --target-dir= -v -vv -q --quiet --verbose --frozen --locked --offline"),
			anywhere: opts("--config=runs"),
			exactSub: set("run install"),
		},
		"npm": {
			kind: subcommands,
			opts: opts("--prefix= -C= --workspace= -w= --userconfig=runs --globalconfig=runs --registry= --cache= --loglevel= " +
				"--otp= --tag= --scope= --script-shell=runs --node-options=runs -g --global -s --silent -q --quiet -d -dd " +
				"--verbose -y --yes --json --offline --ignore-scripts --dry-run -f --force --workspaces -ws"),
			anywhere: opts("--script-shell=runs --node-options=runs --userconfig=runs --globalconfig=runs"),
			exactSub: set("exec x run-script explore"),
		},
		"pnpm": {
			kind:     subcommands,
			opts:     opts("-C= --dir= --filter= -F= -w --workspace-root -r --recursive -s --silent --reporter="),
			exactSub: set("exec dlx"),
		},
		"yarn": {kind: subcommands, opts: opts("--cwd= --silent -s --verbose"), exactSub: set("exec dlx")},
		"kubectl": {
			kind: subcommands,
			opts: opts("--context= --namespace= -n= --cluster= --user= --kubeconfig=runs -s= --server= --token= --as= " +
				"--as-group= --as-uid= --certificate-authority= --client-certificate= --client-key= --request-timeout= " +
				"--tls-server-name= --cache-dir= -v= --v= --vmodule= --username= --password= --profile= " +
				"--profile-output=writes --insecure-skip-tls-verify --match-server-version --warnings-as-errors " +
				"--disable-compression --log-flush-frequency="),
			anywhere: opts("--kubeconfig=runs"),
			exactSub: set("exec debug plugin"),
		},
		"helm": {
			kind: subcommands,
			opts: opts("--kube-context= --namespace= -n= --kubeconfig=runs --registry-config= --repository-config= " +
				"--repository-cache= --burst-limit= --qps= --kube-apiserver= --kube-as-user= --kube-as-group= " +
				"--kube-ca-file= --kube-tls-server-name= --kube-token= --content-cache= --debug --kube-insecure-skip-tls-verify"),
		},
		"terraform": {kind: subcommands, singleDash: true, opts: opts("-chdir=")},
		"tofu":      {kind: subcommands, singleDash: true, opts: opts("-chdir=")},
		"docker": {
			kind: subcommands,
			opts: opts("-H= --host= -c= --context= --config=runs -l= --log-level= --tlscacert= --tlscert= --tlskey= " +
				"-D --debug --tls --tlsverify"),
			exactSub: set("run exec"),
		},
		"podman": {kind: subcommands, opts: opts("--connection= -c= --url= --root= --runroot= --log-level= --remote -r"),
			exactSub: set("run exec")},
		"make": {
			kind: subcommands, assignments: true,
			opts: opts("-C= --directory= -f= --file= --makefile= -I= --include-dir= -j=num --jobs=num -l=num " +
				"--load-average=num -o= --old-file= --assume-old= -W= --what-if= --new-file= --assume-new= " +
				"--eval=runs -E=runs -O= --output-sync= --debug= -B -d -e -i -k -n -p -q -r -R -s -S -t -v -w " +
				"--always-make --ignore-errors --keep-going --just-print --dry-run --recon --silent --quiet " +
				"--no-print-directory --print-directory --no-builtin-rules --no-builtin-variables --environment-overrides " +
				"--question --touch --trace --warn-undefined-variables --check-symlink-times"),
			anywhere: opts("--eval=runs -E=runs"),
		},

		// Wrappers: their command is a command of its own.
		"env": {kind: wrapper, assignments: true, exact: true,
			opts: opts("-i --ignore-environment -0 --null -u= --unset= -C= --chdir= -S=undecided --split-string=undecided " +
				"-v --debug --ignore-signal= --default-signal= --block-signal= --list-signal-handling -P=")},
		"sudo": {kind: wrapper, assignments: true, exact: true,
			opts: opts("-u= --user= -g= --group= -C= --close-from= -D= --chdir= -h= --host= -p= --prompt= -r= --role= " +
				"-t= --type= -U= --other-user= -T= --command-timeout= -R= --chroot= -A --askpass -b --background -E " +
				"--preserve-env -H --set-home -k --reset-timestamp -K --remove-timestamp -n --non-interactive -P " +
				"--preserve-groups -S --stdin -B --bell -N --no-update -s!stdin --shell!stdin -i!stdin --login!stdin " +
				"-e!runs --edit!runs -l!runs --list!runs -v --validate")},
		"doas":    {kind: wrapper, exact: true, opts: opts("-u= -C=runs -n -s!stdin -L")},
		"nice":    {kind: wrapper, exact: true, opts: opts("-n= --adjustment=")},
		"nohup":   {kind: wrapper, exact: true},
		"time":    {kind: wrapper, exact: true, opts: opts("-f= --format= -o=writes --output=writes -a --append -p --portability -v --verbose -q --quiet")},
		"timeout": {kind: wrapper, exact: true, operands: 1, opts: opts("-s= --signal= -k= --kill-after= --preserve-status --foreground -v --verbose")},
		"stdbuf":  {kind: wrapper, exact: true, opts: opts("-i= --input= -o= --output= -e= --error=")},
		"setsid":  {kind: wrapper, exact: true, opts: opts("-c --ctty -f --fork -w --wait")},
		"ionice":  {kind: wrapper, exact: true, opts: opts("-c= --class= -n= --classdata= -t --ignore -p!runs --pid!runs -P!runs -u!runs")},
		"chrt": {kind: wrapper, exact: true, operands: 1,
			opts: opts("-b --batch -f --fifo -i --idle -o --other -r --rr -d --deadline -R --reset-on-fork -a --all-tasks " +
				"-m!runs --max!runs -p!runs --pid!runs -T= --sched-runtime= -P= --sched-period= -D= --sched-deadline= -v --verbose")},
		"taskset": {kind: wrapper, exact: true, operands: 1, opts: opts("-a --all-tasks -c --cpu-list -p!runs --pid!runs")},
		"flock": {kind: wrapper, exact: true, operands: 1,
			opts: opts("-s --shared -x -e --exclusive -u --unlock -n --nb --nonblock -o --close -E= --conflict-exit-code= " +
				"-w= --timeout= -c=shell --command=shell -F --no-fork --verbose")},
		"chroot":  {kind: wrapper, exact: true, operands: 1, opts: opts("--userspec= --groups= --skip-chdir")},
		"nsenter": {kind: wrapper, exact: true, opts: opts("-t= --target= -S= --setuid= -G= --setgid= -a --all -F --no-fork --preserve-credentials -Z --follow-context")},
		"unshare": {kind: wrapper, exact: true,
			opts: opts("-m -u -i -n -p -U -C -T -f --fork -r --map-root-user -c --map-current-user --mount-proc --kill-child " +
				"--propagation= --setgroups= --map-user= --map-group= --map-users= --map-groups= -S= --setuid= -G= --setgid= " +
				"-R= --root= -w= --wd= -l --load-interp= --keep-caps --map-auto")},
		"strace": {kind: wrapper, exact: true,
			opts: opts("-e= -o=writes --output=writes -p= -s= -u= -E= -a= -b= -I= -O= -P= -X= -S= -U= -f -ff -c -C -d -D -h -i -k -q " +
				"-qq -r -t -tt -ttt -T -v -V -w -x -xx -y -yy -z -Z --follow-forks --summary-only")},
		"ltrace": {kind: wrapper, exact: true, opts: opts("-e= -o=writes --output=writes -p= -s= -u= -n= -A= -D= -F= -l= -L -b -c -C -f -h -i -r -S -t -tt -ttt -T -V -w=")},
		"xargs": {kind: wrapper, exact: true,
			opts: opts("-0 --null -a= --arg-file= -d= --delimiter= -E= -e --eof= -I= -i --replace -L= -l --max-lines= " +
				"-n= --max-args= -P= --max-procs= -s= --max-chars= --process-slot-var= -o --open-tty -p --interactive " +
				"-r --no-run-if-empty -t --verbose -x --exit --show-limits")},
		"exec":        {kind: wrapper, exact: true, opts: opts("-a= -c -l")},
		"command":     {kind: wrapper, exact: true, opts: opts("-p -v -V")},
		"builtin":     {kind: wrapper, exact: true},
		"caffeinate":  {kind: wrapper, exact: true, opts: opts("-d -i -m -s -u -t= -w=")},
		"systemd-run": {kind: wrapper, exact: true},
		"runuser":     {kind: wrapper, exact: true, opts: opts("-u= --user= -g= --group= -G= --supp-group= -l --login -m -p --preserve-environment -c=shell --command=shell -s= --shell= -P --pty -w= --whitelist-environment=")},
		"su":          {kind: wrapper, exact: true, operands: 1, opts: opts("-c=shell --command=shell -s= --shell= -l --login - -m -p --preserve-environment -g= --group= -G= --supp-group= -P --pty -w= --whitelist-environment=")},
		"watch":       {kind: wrapper, exact: true, opts: opts("-n= --interval= -d --differences -t --no-title -b --beep -e --errexit -g --chgexit -c --color -x --exec -p --precise -w --no-wrap -q= --equexit=")},
		"ssh": {kind: wrapper, exact: true, operands: 1,
			opts: opts("-b= -c= -D= -E=writes -e= -F=runs -I= -i= -J= -L= -l= -m= -O= -o=runs -p= -Q= -R= -S= -W= -w= " +
				"-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y")},
		"script":   {kind: wrapper, exact: true, opts: opts("-c=shell --command=shell -a --append -e --return -f --flush -q --quiet -t=writes --timing=writes -E= --echo= -m= --logging-format= -B=writes --log-io=writes -I=writes --log-in=writes -O=writes --log-out=writes -T=writes --log-timing=writes")},
		"busybox":  {kind: wrapper, exact: true},
		"parallel": {kind: wrapper, exact: true, opts: opts("--pipe --jobs= -j=")},

		// Shells and interpreters.
		"bash":  {kind: shellProg, exact: true, opts: opts(shellOpts + " -O= +O= --rcfile= --init-file=")},
		"sh":    {kind: shellProg, exact: true, opts: opts(shellOpts)},
		"dash":  {kind: shellProg, exact: true, opts: opts(shellOpts)},
		"ash":   {kind: shellProg, exact: true, opts: opts(shellOpts)},
		"ksh":   {kind: shellProg, exact: true, opts: opts(shellOpts)},
		"mksh":  {kind: shellProg, exact: true, opts: opts(shellOpts)},
		"rbash": {kind: shellProg, exact: true, opts: opts(shellOpts + " -O= +O= --rcfile= --init-file=")},
		"zsh":   {kind: shellProg, exact: true, otherGrammar: true, opts: opts(shellOpts)},
		"fish":  {kind: shellProg, exact: true, otherGrammar: true, opts: opts("-c=undecided --command=undecided -C=undecided --init-command=undecided -i -l -n -N -P -p=writes --profile=writes -d= --debug=")},
		"csh":   {kind: shellProg, exact: true, otherGrammar: true, opts: opts(shellOpts)},
		"tcsh":  {kind: shellProg, exact: true, otherGrammar: true, opts: opts(shellOpts)},
		"pwsh":  {kind: shellProg, exact: true, otherGrammar: true, opts: opts("-c=undecided -Command=undecided -EncodedCommand=undecided -File=")},

		"perl":      {kind: interpreter, exact: true, opts: opts("-e=code -E=code -M=code -m=code -d=code -I= -x= -i=writes -F= -l -0 -n -p -a -s -T -t -w -W -X -c -u -U -v -V -S")},
		"ruby":      {kind: interpreter, exact: true, opts: opts("-e=code -r= -I= -C= -E= -F= -x -n -p -a -l -s -w -W -v -d -0 -h -c --disable= --enable=")},
		"node":      {kind: interpreter, exact: true, opts: opts("-e=code --eval=code -p=code --print=code -r= --require= --import= --loader= --input-type= -c --check -i --interactive")},
		"nodejs":    {kind: interpreter, exact: true, opts: opts("-e=code --eval=code -p=code --print=code -r= --require= --import= --loader= -c --check -i --interactive")},
		"php":       {kind: interpreter, exact: true, opts: opts("-r=code -B=code -R=code -E=code -F= -f= -d= -c= -n -a -l -q -s -v -w")},
		"lua":       {kind: interpreter, exact: true, opts: opts("-e=code -l= -i -v -E -W")},
		"luajit":    {kind: interpreter, exact: true, opts: opts("-e=code -l= -b= -j= -O= -i -v -E")},
		"Rscript":   {kind: interpreter, exact: true, opts: opts("-e=code --default-packages= --verbose --vanilla")},
		"julia":     {kind: interpreter, exact: true, opts: opts("-e=code -E=code --eval=code --print=code -L=module --load=module -t= --threads= -p= --procs= -i -q --quiet --project=")},
		"osascript": {kind: interpreter, exact: true, opts: opts("-e=code -l= -s= -i")},
		"tclsh":     {kind: interpreter, exact: true},
		"awk":       {kind: plainProg, exact: true, code: awkCode},
		"gawk":      {kind: plainProg, exact: true, code: awkCode},
		"mawk":      {kind: plainProg, exact: true, code: awkCode},
		"nawk":      {kind: plainProg, exact: true, code: awkCode},
		"sed":       {kind: plainProg, exact: true, code: sedCode},
		"gsed":      {kind: plainProg, exact: true, code: sedCode},

		// Programs whose every use writes or destroys something, or whose
		// options do: "always" for one use is no grant for the next.
		"find": {kind: plainProg, exact: true, singleDash: true,
			anywhere: opts("-exec!runs -execdir!runs -ok!runs -okdir!runs -delete!writes -fprint=writes -fprint0=writes -fprintf=writes -fls=writes")},
		"tee":      {kind: plainProg, exact: true},
		"cp":       {kind: plainProg, exact: true},
		"mv":       {kind: plainProg, exact: true},
		"ln":       {kind: plainProg, exact: true},
		"install":  {kind: plainProg, exact: true},
		"dd":       {kind: plainProg, exact: true},
		"rsync":    {kind: plainProg, exact: true, anywhere: opts("-e=runs --rsh=runs --rsync-path=runs")},
		"scp":      {kind: plainProg, exact: true, anywhere: opts("-S=runs -o=runs -F=runs")},
		"truncate": {kind: plainProg, exact: true},
		"curl": {kind: plainProg, exact: true, anywhere: opts("-o=writes --output=writes -O!writes --remote-name!writes " +
			"-D=writes --dump-header=writes -c=writes --cookie-jar=writes --trace=writes --trace-ascii=writes --stderr=writes -K=runs --config=runs")},
		"wget": {kind: plainProg, exact: true},
		"rm":   {kind: plainProg, exact: true}, "rmdir": {kind: plainProg, exact: true}, "shred": {kind: plainProg, exact: true},
		"mkfs": {kind: plainProg, exact: true}, "chmod": {kind: plainProg, exact: true}, "chown": {kind: plainProg, exact: true},
		"chgrp": {kind: plainProg, exact: true}, "kill": {kind: plainProg, exact: true}, "pkill": {kind: plainProg, exact: true},
		"killall": {kind: plainProg, exact: true},
		"npx":     {kind: plainProg, exact: true}, "bunx": {kind: plainProg, exact: true},
		"eval": {kind: plainProg, exact: true}, "source": {kind: plainProg, exact: true}, ".": {kind: plainProg, exact: true},
		"trap": {kind: plainProg, exact: true}, "alias": {kind: plainProg, exact: true},
		"mapfile": {kind: plainProg, exact: true}, "readarray": {kind: plainProg, exact: true},
		"enable": {kind: plainProg, exact: true}, "bind": {kind: plainProg, exact: true},
		"complete": {kind: plainProg, exact: true}, "compgen": {kind: plainProg, exact: true},
		"set": {kind: plainProg, exact: true}, "shopt": {kind: plainProg, exact: true},
		"hash": {kind: plainProg, exact: true}, "fc": {kind: plainProg, exact: true},
	}
})

// interpreterName matches the interpreters known by a versioned name
// (python3.12, pypy3): read like python.
var interpreterName = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

var python = &program{kind: interpreter, exact: true,
	opts: opts("-c=code -m=module -W= -X= --check-hash-based-pycs= -b -B -d -E -h -i -I -O -OO -P -q -s -S -u -v -V -x")}

// lookupProgram is the table's entry for a command word, by its base
// name; nil for a program the table does not know.
func lookupProgram(name string) *program {
	if p := programs()[name]; p != nil {
		return p
	}
	if interpreterName.MatchString(name) {
		return python
	}
	return nil
}

// awkCode judges an awk program's text, without reading its grammar:
// running a command takes system(), a pipe or gawk's indirect call and
// @load, writing a file takes a redirection, and a text without those
// characters can do neither.
func awkCode(text string) (runs, writes bool) {
	return strings.Contains(text, "system") || strings.ContainsAny(text, "|@"), strings.Contains(text, ">")
}
