"""What tests/ and bench/ both run the code in: loopback webs of scripted sites (web, styles,
certs), scratch databases (db) and `actiondex` processes (procs). Neither shipped in the wheel
nor in the image; it imports neither tests nor bench, which both import it."""
