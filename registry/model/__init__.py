"""model: see README Layout."""
