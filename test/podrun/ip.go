package podrun

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
)

// A pod's IP is an address of 127.0.0.0/8 (all of it is this machine's
// loopback on Linux), so two pods can both listen on 9292. Test processes
// running at once must not pick the same one: whoever holds a listener on
// the address's claimPort owns the address, and holds it for the pod's life.
const claimPort = 1

// claimedIP is an address a pod owns until release.
type claimedIP struct {
	IP    string
	claim net.Listener
}

func (c *claimedIP) release() {
	if c != nil && c.claim != nil {
		_ = c.claim.Close()
	}
}

// claimIP picks a random 127.a.b.c (a from 16, so 127.0.0.1 and the
// 127.0.1.1 of Debian's /etc/hosts are never used), claims it, and checks
// that the pod's ports are free on it.
func claimIP(ports []int) (*claimedIP, error) {
	var last error
	for range 64 {
		ip := fmt.Sprintf("127.%d.%d.%d", 16+rand.IntN(239), rand.IntN(256), 1+rand.IntN(254))
		l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(claimPort)))
		if err != nil {
			last = err
			continue
		}
		free := true
		for _, p := range ports {
			pl, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p)))
			if err != nil {
				free, last = false, err
				break
			}
			_ = pl.Close()
		}
		if !free {
			_ = l.Close()
			continue
		}
		return &claimedIP{IP: ip, claim: l}, nil
	}
	return nil, fmt.Errorf("no free loopback address for a pod: %w", last)
}
