"""Schema revisions, oldest first (a package so that wheels and bundles ship them)."""
