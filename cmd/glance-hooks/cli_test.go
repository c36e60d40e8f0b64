package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
)

// Every command behaves alike: help on stdout with exit 0, usage errors on
// stderr with exit 2, flags written --flag.
func TestCommandLine(t *testing.T) {
	cases := map[string]struct {
		args     []string
		code     int
		stdout   []string // each must appear in stdout
		stderr   []string // each must appear in stderr
		emptyOut bool
		emptyErr bool
		notInOut []string
	}{
		"help":                 {args: []string{"help"}, stdout: []string{"Available Commands:", "serve", "render", "version"}, emptyErr: true},
		"--help":               {args: []string{"--help"}, stdout: []string{"Available Commands:"}, emptyErr: true},
		"help serve":           {args: []string{"help", "serve"}, stdout: []string{"glance-hooks serve [flags]", "--listen string", "--tls-cert-file"}, emptyErr: true},
		"serve --help":         {args: []string{"serve", "--help"}, stdout: []string{"glance-hooks serve [flags]", "--listen string"}, notInOut: []string{"--floor"}, emptyErr: true},
		"serve -h":             {args: []string{"serve", "-h"}, stdout: []string{"--listen string"}, emptyErr: true},
		"help render":          {args: []string{"help", "render"}, stdout: []string{"-f, --filename", "--check", "Exit codes:"}, emptyErr: true},
		"render --help":        {args: []string{"render", "--help"}, stdout: []string{"-n, --namespace", "-o, --output"}, emptyErr: true},
		"help version":         {args: []string{"help", "version"}, stdout: []string{"glance-hooks version"}, emptyErr: true},
		"version":              {args: []string{"version"}, stdout: []string{buildinfo.Get().String()}, emptyErr: true},
		"--version":            {args: []string{"--version"}, stdout: []string{buildinfo.Get().String()}, emptyErr: true},
		"version -o json":      {args: []string{"version", "-o", "json"}, stdout: []string{`"version":"` + buildinfo.Get().Version + `"`}, emptyErr: true},
		"no command":           {args: nil, code: exitUsage, stderr: []string{"Available Commands:"}, emptyOut: true},
		"unknown command":      {args: []string{"serv"}, code: exitUsage, stderr: []string{`unknown command "serv"`, "serve", "Run 'glance-hooks --help' for usage."}, emptyOut: true},
		"help unknown command": {args: []string{"help", "nope"}, code: exitUsage, stderr: []string{`no help for "nope"`}, emptyOut: true},
		"unknown root flag":    {args: []string{"--nope"}, code: exitUsage, stderr: []string{"unknown flag: --nope"}, emptyOut: true},
		"unknown serve flag":   {args: []string{"serve", "-listen", ":1"}, code: exitUsage, stderr: []string{"glance-hooks serve:", "Run 'glance-hooks serve --help' for usage."}, emptyOut: true},
		"bad flag value":       {args: []string{"serve", "--api-timeout", "soon"}, code: exitUsage, stderr: []string{`invalid argument "soon"`}, emptyOut: true},
		"render without input": {args: []string{"render"}, code: exitUsage, stderr: []string{"no input: give -f FILE", "Run 'glance-hooks render --help' for usage."}, emptyOut: true},
		"render bad output":    {args: []string{"render", "-f", "x", "-o", "xml"}, code: exitUsage, stderr: []string{"-o must be yaml or json"}, emptyOut: true},
		"render stray arg":     {args: []string{"render", "x.yaml"}, code: exitUsage, stderr: []string{`unexpected argument "x.yaml": give inputs with -f`}, emptyOut: true},
		"version stray arg":    {args: []string{"version", "x"}, code: exitUsage, stderr: []string{"version takes no arguments"}, emptyOut: true},
		"help probe":           {args: []string{"help", "probe"}, stdout: []string{"--ca-file", "--get", "--validate"}, emptyErr: true},
		"probe without checks": {args: []string{"probe", "--ca-file", "ca.crt"}, code: exitUsage, stderr: []string{"nothing to check"}, emptyOut: true},
		"probe without CA":     {args: []string{"probe", "--get", "https://x/readyz"}, code: exitUsage, stderr: []string{"--ca-file is required"}, emptyOut: true},
		"probe unreadable CA":  {args: []string{"probe", "--get", "https://x/readyz", "--ca-file", "/nonexistent/ca.crt"}, code: exitFailure, stderr: []string{"reading the CA"}, emptyOut: true},
		"version bad output":   {args: []string{"version", "-o", "yaml"}, code: exitUsage, stderr: []string{"-o must be json"}, emptyOut: true},
		"probe with nothing":   {args: []string{"probe"}, code: exitUsage, stderr: []string{"--ca-file is required", "nothing to check"}, emptyOut: true},
		"credentials nothing":  {args: []string{"credentials", "--namespace", "x"}, code: exitUsage, stderr: []string{"nothing to keep"}, emptyOut: true},
		"credentials no host":  {args: []string{"credentials", "--namespace", "x", "--tls-secret", "s"}, code: exitUsage, stderr: []string{"at least one host"}, emptyOut: true},
		"credentials renew":    {args: []string{"credentials", "--namespace", "x", "--tls-secret", "s", "--host", "h", "--renew-before-days", "400"}, code: exitUsage, stderr: []string{"valid longer"}, emptyOut: true},
		"credentials no ns":    {args: []string{"credentials", "--token-secret", "t"}, code: exitUsage, stderr: []string{"--namespace is required"}, emptyOut: true},
		"keystone":             {args: []string{"keystone"}, code: exitUsage, stderr: []string{"Available Commands:", "register"}, emptyOut: true},
		"keystone unknown":     {args: []string{"keystone", "bogus"}, code: exitUsage, stderr: []string{`unknown command "bogus" for "glance-hooks keystone"`, "Run 'glance-hooks keystone --help' for usage."}, emptyOut: true},
		"keystone typo":        {args: []string{"keystone", "registr"}, code: exitUsage, stderr: []string{"Did you mean this?", "register"}, emptyOut: true},
		"help keystone":        {args: []string{"help", "keystone"}, stdout: []string{"register", "deregister"}, emptyErr: true},
		"register no flags":    {args: []string{"keystone", "register"}, code: exitUsage, stderr: []string{"--internal-url, --owner, --public-url are required"}, emptyOut: true},
		"register one missing": {args: []string{"keystone", "register", "--owner=ns/cp", "--public-url=http://a:1"}, code: exitUsage, stderr: []string{"--internal-url is required"}, emptyOut: true},
		"completion bash":      {args: []string{"completion", "bash"}, stdout: []string{"bash completion V2 for glance-hooks"}, emptyErr: true},
		"completion zsh":       {args: []string{"completion", "zsh"}, stdout: []string{"#compdef glance-hooks"}, emptyErr: true},
		"completion fish":      {args: []string{"completion", "fish"}, stdout: []string{"complete -c glance-hooks"}, emptyErr: true},
		"completion no shell":  {args: []string{"completion"}, code: exitUsage, stderr: []string{"bash, zsh or fish"}, emptyOut: true},
		"completion bad shell": {args: []string{"completion", "powershell"}, code: exitUsage, stderr: []string{`unknown shell "powershell"`}, emptyOut: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, tc.code, code, "exit code of %q; stderr: %s", tc.args, stderr.String())
			for _, want := range tc.stdout {
				assert.Contains(t, stdout.String(), want)
			}
			for _, want := range tc.stderr {
				assert.Contains(t, stderr.String(), want)
			}
			for _, not := range tc.notInOut {
				assert.NotContains(t, stdout.String(), not)
			}
			if tc.emptyOut {
				assert.Empty(t, stdout.String(), "nothing on stdout")
			}
			if tc.emptyErr {
				assert.Empty(t, stderr.String(), "nothing on stderr")
			}
		})
	}
}

// Help writes every flag as --flag (or -f, --flag), never Go's -flag.
func TestHelpWritesLongFlagsWithTwoDashes(t *testing.T) {
	for _, cmd := range []string{"serve", "credentials", "render", "probe", "version", "keystone register", "keystone deregister"} {
		var stdout bytes.Buffer
		assert.Equal(t, 0, execute(context.Background(), append(strings.Fields(cmd), "--help"), nil, &stdout, &bytes.Buffer{}))
		for _, line := range strings.Split(stdout.String(), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || !strings.HasPrefix(f[0], "-") {
				continue
			}
			flag := strings.TrimSuffix(f[0], ",")
			if len(flag) > 2 {
				assert.True(t, strings.HasPrefix(flag, "--"), "%s --help shows %q", cmd, flag)
			}
		}
	}
}

// cmd/ only parses flags and calls packages: a command file that grows past
// this has logic that belongs in a package.
const maxCommandFileLines = 250

func TestCommandFilesStaySmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.LessOrEqual(t, bytes.Count(b, []byte("\n")), maxCommandFileLines, "%s: move logic into a package", f)
	}
}
