"""db: see README Layout."""
