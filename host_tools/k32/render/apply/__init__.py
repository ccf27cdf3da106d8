"""`k32 apply --manifests`: send exactly a rendered manifest set's hashed objects to a
Kubernetes API server (server-side apply), and report drift between the set and the live
cluster."""
