"""submissions: see README Layout."""
