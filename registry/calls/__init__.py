"""calls: see README Layout."""
