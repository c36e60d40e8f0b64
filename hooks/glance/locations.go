package glance

import (
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// locationsConf hides image locations: glance_store writes S3 locations as
// s3://KEY:SECRET@host/..., so exposing them would hand the S3 keys to API
// clients.
func locationsConf(render.ConfInput) (render.ConfPart, error) {
	return render.ConfPart{Defaults: []storeconf.Option{
		{Key: "show_image_direct_url", Value: "false"},
		{Key: "show_multiple_locations", Value: "false"},
	}}, nil
}
