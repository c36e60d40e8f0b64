package controlplane

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// TestProjectionCarriesTheImportBlocks: services.glance's importPlugins and
// importFiltering reach the Glance child as written; the child's staging
// gets the default size spelled out, which is why admission asks the
// ControlPlane, not the child, whether decompression has a staging bound.
func TestProjectionCarriesTheImportBlocks(t *testing.T) {
	plugins := &api.ImportPluginsSpec{Decompression: &api.ImportDecompressionSpec{}, Conversion: &api.ImportConversionSpec{OutputFormat: "qcow2"},
		InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"a": "b"}}}
	filter := &api.ImportFilteringSpec{AllowedHosts: []string{"mirror.example.com"}, AllowedPorts: []int32{8443}}
	cp := &api.ControlPlane{Spec: api.ControlPlaneSpec{Services: api.Services{Glance: &api.GlanceService{
		ImportPlugins: plugins, ImportFiltering: filter}}}}
	cp.Name, cp.Namespace = "cp", "openstack"
	spec := GlanceSpec(cp)
	if diff := cmp.Diff(plugins, spec.ImportPlugins); diff != "" {
		t.Errorf("importPlugins: -want +got:\n%s", diff)
	}
	if diff := cmp.Diff(filter, spec.ImportFiltering); diff != "" {
		t.Errorf("importFiltering: -want +got:\n%s", diff)
	}
	if spec.Staging == nil || spec.Staging.SizeLimit == nil || spec.Staging.SizeLimit.Cmp(api.DefaultStagingSize) != 0 {
		t.Errorf("the child's staging is the default size spelled out: %+v", spec.Staging)
	}
}
