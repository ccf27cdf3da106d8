"""`k32 apply --bundle`: send exactly a bundle's hashed objects to a Kubernetes API server
(server-side apply), and report drift between a bundle and the live cluster."""
