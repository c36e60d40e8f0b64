package services

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/proc"
)

// Memcached is a memcached of its own on a loopback port.
type Memcached struct {
	Host string
	Port int
	proc *proc.Process
}

// StartMemcached starts memcached on 127.0.0.1 and a free port (TCP only,
// 64 MB) and waits until it answers the version command.
func StartMemcached(t testing.TB) *Memcached {
	t.Helper()
	bin := need(t, "memcached", "memcached")
	dir := t.TempDir()
	m := &Memcached{Host: "127.0.0.1", Port: proc.FreePort(t)}
	argv := []string{bin, "--listen=" + m.Host, "--port=" + strconv.Itoa(m.Port), "--udp-port=0", "--memory-limit=64"}
	// memcached refuses to run as root unless told which user to be.
	if os.Geteuid() == 0 {
		argv = append(argv, "--user=root")
	}
	m.proc = proc.Start(t, proc.Options{Name: "memcached", Argv: argv, Log: filepath.Join(dir, "memcached.log")})
	if _, err := m.proc.WaitFor(30*time.Second, "answer to version", func() error {
		_, err := m.Version()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

// Addr is host:port, the form oslo.cache's memcache_servers takes.
func (m *Memcached) Addr() string { return proc.HostPort(m.Host, m.Port) }

// Version asks the server for its version over the text protocol.
func (m *Memcached) Version() (string, error) {
	c, err := net.DialTimeout("tcp", m.Addr(), 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("version\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(line), "VERSION ")
	if !ok {
		return "", fmt.Errorf("memcached answered %q to version", line)
	}
	return v, nil
}

// Stats returns the server's general statistics (curr_items, get_hits, ...),
// so a test can see that something used the cache.
func (m *Memcached) Stats(t testing.TB) map[string]string {
	t.Helper()
	c, err := net.DialTimeout("tcp", m.Addr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("stats\r\n")); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("memcached stats: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "END" {
			return out
		}
		if f := strings.Fields(line); len(f) == 3 && f[0] == "STAT" {
			out[f[1]] = f[2]
		}
	}
}
