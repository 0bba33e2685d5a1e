"""The project on a versioned S3 bucket (MinIO, SeaweedFS, AWS): client, sync, landing cache."""
