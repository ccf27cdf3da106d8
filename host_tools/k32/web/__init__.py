"""Static web bundles (images/web/<bundle>/) embedded into the firmware."""
