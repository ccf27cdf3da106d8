"""Host-side renderers: ServiceDefinition catalogs (catalog/), Release Templates
(release/), and the one bundle format both produce and `k32 apply` consumes (bundle.py)."""
