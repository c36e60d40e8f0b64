package perf

// withEveryFeatureBlock sets every feature block of the Glance API these
// hooks build on a generated Glance's spec, each with values other than
// its defaults, so the benchmark serves a Glance that renders all of them.
// A block built later adds its line here.
func withEveryFeatureBlock(spec map[string]any) map[string]any {
	spec["imageCache"] = map[string]any{"sizeLimit": "20Gi", "maintenanceInterval": "10m"}
	spec["dbPurge"] = map[string]any{"retentionDays": 14, "schedule": "30 3 * * *", "purgeImagesTable": true}
	// importPlugins and importFiltering go here once they are built.
	return spec
}
