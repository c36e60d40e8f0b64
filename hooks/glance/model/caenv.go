package model

// EnvCABundle is botocore's process-wide CA bundle. glance_store without
// s3_store_cacert creates every S3 client with verify=None, and botocore then
// verifies TLS against this one file instead of its default trust roots.
const EnvCABundle = "AWS_CA_BUNDLE"
