"""Host-side renderers: ServiceDefinition catalogs (catalog/), Release Templates
(release/), and the one manifest-set format both produce and `k32 apply` consumes
(manifest_set.py)."""
