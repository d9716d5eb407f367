"""store: see README Layout."""
