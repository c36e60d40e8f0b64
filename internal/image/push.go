package image

import (
	"fmt"
	"sort"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Index puts one image per architecture under one OCI index, as a
// multi-arch tag is: a node pulls the image of its own architecture.
// Architectures are listed in name order, so the index digest is fixed by
// the images.
func Index(images map[string]v1.Image) (v1.ImageIndex, error) {
	if len(images) == 0 {
		return nil, fmt.Errorf("no image to index")
	}
	arches := make([]string, 0, len(images))
	for a := range images {
		arches = append(arches, a)
	}
	sort.Strings(arches)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, a := range arches {
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        images[a],
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: a}},
		})
	}
	return idx, nil
}

// Push publishes idx as ref (registry/repository:tag) with the
// credentials docker login, podman login or crane auth login left in the
// user's config (none: anonymous), as crane and ko do. A registry on
// localhost or 127.0.0.1 is spoken to over plain HTTP, as
// go-containerregistry does for those. It returns the index digest, which
// pins the release.
func Push(ref string, idx v1.ImageIndex) (v1.Hash, error) {
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("image reference %q: %w", ref, err)
	}
	if err := remote.WriteIndex(tag, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return v1.Hash{}, fmt.Errorf("pushing %s: %w", ref, err)
	}
	return idx.Digest()
}
