"""ARD v0.91 (Agentic Resource Discovery) as a registry: every action we index is an ARD entry,
and every entry a site's ARD catalog lists is served as its publisher wrote it.

``terms`` spells identifiers, media types and JSON-LD terms one way; ``published`` re-reads the
entries of stored ARD documents; ``entries`` makes the entry of one of our actions; ``match``
parses and applies the query model's filters; ``service`` answers Search and Retrieve,
``listing`` List (its scan of the store is Explore's too), ``explore`` Explore; ``model`` holds
the request and response bodies.
Nothing here imports the web framework: api/routes/ard.py is the HTTP edge.
"""
