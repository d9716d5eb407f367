"""Every diagnostic code the normalisers emit, with the fix hint shown when a module gave none.

The codes are stable: the validator, the store and site owners' scripts match on them. A
module that knows better (the field, the host) sets ``Diagnostic.hint`` itself.
"""

from __future__ import annotations

from registry.model.schemas import Diagnostic

HINTS: dict[str, str] = {
    # the document as a whole
    "json-parse-error": "check the JSON with a validator",
    "yaml-parse-error": "check the YAML with a linter",
    "encoding-error": "serve the document as UTF-8",
    "empty-document": "serve the document itself, not an empty body",
    "too-large": "keep manifests under 1 MiB; split big ones",
    "depth-limit": "flatten the document; nothing real needs this depth",
    "unknown-format": "publish agent-actions/0.1, Schema.org JSON-LD, OpenAPI, an A2A card, "
    "an MCP server card or another format actiondex reads",
    "unknown-context": "use @context https://schema.org",
    "internal-error": "nothing to fix on your side; actiondex will retry with a newer version",
    "truncated": "shorten the text; agents see only the first part",
    "suspicious-instruction": "describe what the action does; never address the agent",
    # items
    "missing-field": "add the required field",
    "invalid-type": "use the type the format's spec gives for this field",
    "invalid-name": "use a machine name of letters, digits, _ and - (at most 64)",
    "action-skipped": "fix this item so it can be read; the rest of the document was kept",
    "duplicate-name": "give every action and flow its own name",
    "duplicate-action": "nothing to fix: repeated actions are read once",
    "too-many-actions": "list only the actions agents need, or split the manifest",
    "no-actions": "list at least one action agents can call",
    "no-valid-actions": "fix the actions listed above; none could be read",
    "effect-mismatch": "declare the effect the method really has",
    "noise-readaction": "nothing to fix: a ReadAction on the page itself is SEO markup, ignored",
    "target-skipped": "give one http(s) target (a URL or an EntryPoint with urlTemplate)",
    "invalid-endpoint": "use an absolute http(s) URL or a path on the site",
    # flows
    "flow-skipped": "fix the steps above so every step names an action and binds resolve",
    "no-valid-flows": "fix the flows above; none could be read",
    "unknown-action": "list the action in the same manifest, or in another document of the site",
    "bad-binding": "bind to $input.<field> or $steps.<N>.<path> of an earlier step",
    "override-ignored": "overrides may change an operation's summary or description",
    # references and endpoints
    "unresolved-reference": "the crawler fetches it next; make sure it is public and valid",
    "unresolved-ref": "point $ref at a definition inside the same document",
    "unusable-schema": "keep the input schema under 64 KiB, its $refs inside it (in $defs), "
    "and without references that multiply",
    "invalid-reference": "point the link at the document the format expects",
    "too-many-references": "reference fewer documents from one manifest",
    "references-only": "nothing to fix: the referenced documents hold the operations",
    "no-actions-section": "add '## Actions' with links to your manifests",
    "invalid-identifier": "use urn:air:<your domain>:<namespace>:<name>",
    "spoofed-publisher": "list only entries your own domain publishes",
    "cross-origin-endpoint": "serve endpoints from the site or a subdomain of it",
    "insecure-endpoint": "serve the endpoint over https",
    "private-endpoint": "use a public host name; agents cannot reach private addresses",
}


def with_hint(diagnostic: Diagnostic) -> Diagnostic:
    if diagnostic.hint or diagnostic.code not in HINTS:
        return diagnostic
    return diagnostic.model_copy(update={"hint": HINTS[diagnostic.code]})
