"""The normaliser's version: a stored document normalised by an older one is normalised again
(registry.store.promotion) when its site is next crawled or ingested. Raise it whenever the
same document would now give different actions, flows or diagnostics, and say why below."""

from __future__ import annotations

# 11: an EntryPoint's contentType is the response's (seed 000, Schema.org): only encodingType
# makes a method left unstated POST;
# 10: a Schema.org EntryPoint without httpMethod is called with GET (seed 000's default);
# a site on a non-default port is keyed host:port (registry.model.urls.site_key);
# 9: a bare-host agent-actions site is the origin that served it; endpoints say whether their
# owner is verified (Action.verified: the same registrable domain).
# 8: descriptions that read as instructions to the agent are flagged suspicious-instruction,
# MCP tools whose description says they send, spend or delete have that effect;
# 7: seed 002 (agent-actions: top-level auth, steps bound with "with", a flow's input from its
# $input references, a step over another document's action kept) and every flow's auth, scope
# and cost from its steps; seed 001 (Wildcard without agentsJson); seed 000 (PropertyValue
# defaultValue and bounds, a read action's object as its output);
# 6: OpenAPI $refs the normaliser did not follow are inert x-refs, and an input schema prepare
# cannot use (a $ref outside it, too large expanded) has an unusable-schema diagnostic;
# 5: the publisher's whole text for the index (Action.about, Manifest.site_about); 4:
# agent-actions costs by input field, request bodies say how they are sent (OpenAPI x-in: body,
# x-content-type; a Schema.org EntryPoint's encodingType); 3: leonting fields as output,
# Wildcard effects by name, A-label hosts
NORMALISER_VERSION = 11
