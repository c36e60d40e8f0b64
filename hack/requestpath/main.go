// Command requestpath counts the files one /sync/glance request enters
// (docs/hooks.md, "Inside the Glance hook"): the Go files of hooks/ of
// which a fixture case runs a statement, from the route to the answer, as a
// coverage profile shows. It prints them per directory, then the files of
// hooks/glance and its stages split into the features' own files (every
// file directly in hooks/glance but the hook's own, named as arguments) and
// the core path (the rest: the hook's own files and its stages'). Run it
// from the repository's root (make request-path); a test fails while
// docs/hooks.md quotes other figures.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"sort"
	"strings"
)

// module is the import path the coverage profile names files by.
const module = "github.com/c5c3/glance-hooks/"

// Path is what one request entered.
type Path struct {
	// Files are the production files under hooks/ with a statement run,
	// by their path from the repository's root, sorted.
	Files []string
	// Glance counts those in hooks/glance and its stages; Features those
	// of them that are a feature's own file.
	Glance, Features int
	// Stages counts the files entered in each stage package of
	// hooks/glance (storestate, model, observe, ...), by its name.
	Stages map[string]int
}

// Core is the core path: the hook's own files and its stages'.
func (p Path) Core() int { return p.Glance - p.Features }

func main() {
	fixture := flag.String("case", "sync-glance/two-stores-ready", "the fixture case (test/fixtures) whose request is followed")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: requestpath [-case dir] hook-file.go ...   (the files of hooks/glance that are no feature's)")
		flag.PrintDefaults()
	}
	flag.Parse()
	p, err := Measure(".", *fixture, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "requestpath:", err)
		os.Exit(1)
	}
	p.Print(os.Stdout)
}

// Measure runs the fixture case's test with a coverage profile of hooks/
// in the repository at root and counts what it entered; hookFiles are the
// files directly in hooks/glance that are the hook's own, not a feature's.
func Measure(root, fixture string, hookFiles []string) (Path, error) {
	profile, err := os.CreateTemp("", "requestpath-*.out")
	if err != nil {
		return Path{}, err
	}
	profile.Close()
	defer os.Remove(profile.Name())
	cmd := exec.Command("go", "test", "./test/", "-count=1", "-run", "TestFixtures/"+fixture+"$",
		"-coverpkg=./hooks/...", "-coverprofile="+profile.Name())
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return Path{}, fmt.Errorf("go test for the profile: %w\n%s", err, out)
	}
	f, err := os.Open(profile.Name())
	if err != nil {
		return Path{}, err
	}
	defer f.Close()
	files, err := entered(f)
	if err != nil {
		return Path{}, err
	}
	return count(files, hookFiles), nil
}

// entered reads a coverage profile ("file:from,to statements count" after
// a mode line) and returns the files with a block that ran, sorted.
func entered(profile io.Reader) ([]string, error) {
	seen := map[string]bool{}
	lines := bufio.NewScanner(profile)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for first := true; lines.Scan(); first = false {
		line := lines.Text()
		if first || line == "" {
			continue
		}
		file, _, found := strings.Cut(line, ":")
		fields := strings.Fields(line)
		if !found || len(fields) != 3 {
			return nil, fmt.Errorf("coverage profile line %q is not file:block statements count", line)
		}
		if fields[2] != "0" {
			seen[strings.TrimPrefix(file, module)] = true
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	files := make([]string, 0, len(seen))
	for file := range seen {
		files = append(files, file)
	}
	sort.Strings(files)
	return files, nil
}

// count splits the entered files: hooks/glance and its stages, a feature's
// own file (directly in hooks/glance, not one of hookFiles), each stage's.
func count(files, hookFiles []string) Path {
	hook := map[string]bool{}
	for _, name := range hookFiles {
		hook[name] = true
	}
	p := Path{Files: files, Stages: map[string]int{}}
	for _, file := range files {
		dir, name := path.Split(file)
		switch {
		case dir == "hooks/glance/":
			p.Glance++
			if !hook[name] {
				p.Features++
			}
		case strings.HasPrefix(dir, "hooks/glance/"):
			p.Glance++
			p.Stages[strings.TrimSuffix(strings.TrimPrefix(dir, "hooks/glance/"), "/")]++
		}
	}
	return p
}

// Print writes the files per directory, then the counts.
func (p Path) Print(w io.Writer) {
	perDir := map[string]int{}
	var dirs []string
	for _, file := range p.Files {
		dir, _ := path.Split(file)
		if perDir[dir] == 0 {
			dirs = append(dirs, dir)
		}
		perDir[dir]++
	}
	for _, dir := range dirs {
		fmt.Fprintf(w, "%7d %s\n", perDir[dir], dir)
	}
	fmt.Fprintf(w, "hooks/: %d files; hooks/glance and its stages: %d files, %d of them the features' own, core path %d files\n",
		len(p.Files), p.Glance, p.Features, p.Core())
}
