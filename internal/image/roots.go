package image

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// minRoots is fewer CA roots than any real bundle holds (Debian's and
// Mozilla's hold about 140): a bundle below it is a wrong file, not roots.
const minRoots = 20

// readCABundle reads the CA roots to ship and checks they are what they
// claim: PEM certificates that parse, and enough of them. An image with an
// empty or truncated bundle would build, and fail only when the
// registration Job first meets an https Keystone.
func readCABundle(path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("no CA bundle given: the image ships CA roots for an https Keystone")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the CA bundle: %w", err)
	}
	n, rest := 0, b
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, fmt.Errorf("CA bundle %s: certificate %d: %w", path, n+1, err)
		}
		n++
	}
	if n < minRoots {
		return nil, fmt.Errorf("CA bundle %s holds %d certificates, fewer than %d: not a CA roots bundle", path, n, minRoots)
	}
	return b, nil
}
