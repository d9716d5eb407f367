"""Fictional sites in every publishing style the crawler must discover, one action name each
(``<style>_<n>``) so a test can check that every path was followed to the end.

``site(style, origin, n)`` returns (Site, expected action names). The bench builds hundreds of
these; the discovery test builds one of each.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable

from harness.web import Reply, Site, html_reply, json_reply

STYLES = (
    "agent_actions",
    "sitemap",
    "link_tag",
    "link_header",
    "ai_plugin",
    "agentmap",
    "a2a",
    "mcp",
    "llms",
    "wildcard",
    "schemamap",
    "webmcp",
    "jsonld",
)
XML = {"Content-Type": "application/xml"}
Paths = dict[str, Reply | list[Reply]]


def agent_actions(name: str) -> str:
    return json.dumps(
        {
            "schema": "agent-actions/0.1",
            "site": {"name": f"Site {name}"},
            "actions": [
                {
                    "name": name,
                    "title": f"Do {name}",
                    "method": "GET",
                    "path": f"/api/{name}{{?q}}",
                    "effect": "read",
                    "description": f"Runs {name} for the caller.",
                }
            ],
        }
    )


def openapi(origin: str, name: str) -> str:
    return json.dumps(
        {
            "openapi": "3.0.3",
            "info": {"title": f"API {name}", "version": "1"},
            "servers": [{"url": origin}],
            "paths": {f"/api/{name}": {"post": {"operationId": name, "summary": f"Call {name}"}}},
        }
    )


def jsonld_page(origin: str, name: str, extra: str = "") -> str:
    data = {
        "@context": "https://schema.org",
        "@type": "WebSite",
        "url": origin + "/",
        "potentialAction": {
            "@type": "SearchAction",
            "name": name,
            "target": origin + f"/search/{name}?q={{q}}",
            "query-input": "required name=q",
        },
    }
    return (
        f'<!doctype html><html><head>{extra}<script type="application/ld+json">'
        f"{json.dumps(data)}</script></head><body>hello</body></html>"
    )


def _urlset(locs: list[str]) -> bytes:
    urls = "".join(f"<url><loc>{u}</loc></url>" for u in locs)
    return (
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"{urls}</urlset>"
    ).encode()


def site(style: str, origin: str, n: int, specs: str = "") -> tuple[Site, set[str]]:
    """One site of ``style`` served at ``origin``; ``specs`` is another origin for references
    that cross hosts (defaults to ``origin``)."""
    name = f"{style}_{n}"
    specs = specs or origin
    home = html_reply(jsonld_page(origin, f"home_{name}"))
    expected = {name}
    paths: Paths = {"/": home}
    BUILDERS[style](origin, name, n, specs, paths, expected)
    return Site(paths), expected | {f"home_{name}"}


def _mcp_card(origin: str, name: str) -> str:
    return json.dumps(
        {
            "serverInfo": {"name": f"srv-{name}", "version": "1.0.0", "description": "Tools."},
            "transport": {"type": "streamable-http", "url": origin + "/mcp"},
            "capabilities": {
                "tools": [
                    {"name": name, "description": "A tool.", "inputSchema": {"type": "object"}}
                ]
            },
        }
    )


def _agent_actions(
    origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]
) -> None:
    paths["/.well-known/agent-actions.json"] = json_reply(agent_actions(name))


def _sitemap(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    index = (
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/'
        f'sitemap/0.9"><sitemap><loc>{origin}/maps/pages.xml.gz</loc></sitemap>'
        "</sitemapindex>"
    ).encode()
    pages = [f"{origin}/p/{i}" for i in range(3)] + [f"{origin}/about"]
    paths["/robots.txt"] = Reply(body=f"Sitemap: {origin}/maps/index.xml\n".encode())
    paths["/maps/index.xml"] = Reply(body=index, headers=XML)
    paths["/maps/pages.xml.gz"] = Reply(body=gzip.compress(_urlset(pages)))
    paths["/p/0"] = html_reply(jsonld_page(origin, name))
    paths["/about"] = html_reply(jsonld_page(origin, f"about_{name}"))
    expected.add(f"about_{name}")


def _link_tag(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    tag = '<link rel="describedby" type="application/ld+json" href="/meta/actions.json">'
    paths["/"] = html_reply(jsonld_page(origin, f"home_{name}", tag))
    paths["/meta/actions.json"] = json_reply(agent_actions(name))


def _link_header(
    origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]
) -> None:
    link = '</catalog/apis>; rel="api-catalog"'
    paths["/"] = html_reply(jsonld_page(origin, f"home_{name}"), Link=link)
    catalog = {
        "linkset": [
            {
                "anchor": origin + "/api",
                "service-desc": [
                    {"href": specs + f"/specs/{name}.json", "type": "application/openapi+json"}
                ],
            }
        ]
    }
    paths["/catalog/apis"] = json_reply(json.dumps(catalog))
    paths[f"/specs/{name}.json"] = json_reply(openapi(origin, name))


def _ai_plugin(
    origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]
) -> None:
    plugin = {
        "schema_version": "v1",
        "name_for_human": f"Plugin {n}",
        "name_for_model": f"plugin_{n}",
        "description_for_human": "A plugin.",
        "description_for_model": "A plugin.",
        "auth": {"type": "none"},
        "api": {"type": "openapi", "url": specs + f"/specs/{name}.json"},
    }
    paths["/.well-known/ai-plugin.json"] = json_reply(json.dumps(plugin))
    paths[f"/specs/{name}.json"] = json_reply(openapi(origin, name))


def _agentmap(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    paths["/robots.txt"] = Reply(body=b"User-agent: *\nAllow: /\nAgentmap: /catalogs/ard\n")
    host = origin.split("://")[1].split(":")[0]
    ard = {
        "specVersion": "1.0",
        "host": {"displayName": f"Catalog {n}", "identifier": f"did:web:{host}"},
        "entries": [
            {
                "identifier": f"urn:air:{host}:server:tools",
                "displayName": "Tools",
                "type": "application/mcp-server-card+json",
                "url": "/mcp/card.json",
            }
        ],
    }
    paths["/catalogs/ard"] = json_reply(json.dumps(ard))
    paths["/mcp/card.json"] = json_reply(_mcp_card(origin, name))


def _a2a(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    card = {
        "protocolVersion": "0.3.0",
        "name": f"Agent {n}",
        "description": "An agent.",
        "url": origin + "/a2a/v1",
        "version": "1.0.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {"id": name, "name": f"Skill {name}", "description": "A skill.", "tags": ["demo"]}
        ],
    }
    paths["/.well-known/agent-card.json"] = json_reply(json.dumps(card))


def _mcp(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    paths["/.well-known/mcp/server-card.json"] = json_reply(_mcp_card(origin, name))


def _llms(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    text = (
        f"# Site {n}\n\n> Things.\n\n## Actions\n\n- [More]({origin}/actions/more.json):"
        " more actions\n"
    )
    paths["/llms.txt"] = Reply(body=text.encode(), headers={"Content-Type": "text/plain"})
    paths["/actions/more.json"] = json_reply(agent_actions(name))


def _wildcard(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    wild = {
        "agentsJson": "0.1.0",
        "info": {"title": f"Wild {n}", "version": "0.1.0", "description": "Flows."},
        "sources": [{"id": "api", "path": specs + f"/specs/{name}.json"}],
        "flows": [
            {
                "id": f"flow_{n}",
                "title": "Flow",
                "description": "A flow.",
                "actions": [{"id": "a", "sourceId": "api", "operationId": name}],
                "links": [],
            }
        ],
    }
    paths["/.well-known/agents.json"] = json_reply(json.dumps(wild))
    paths[f"/specs/{name}.json"] = json_reply(openapi(origin, name))


def _schemamap(
    origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]
) -> None:
    paths["/robots.txt"] = Reply(body=b"User-agent: *\nschemaMap: /schemamap.xml\n")
    paths["/schemamap.xml"] = Reply(body=_urlset([f"{origin}/data/1.jsonld"]), headers=XML)
    data = json.loads(jsonld_page(origin, name).split('json">')[1].split("</script")[0])
    paths["/data/1.jsonld"] = json_reply(json.dumps(data))


def _webmcp(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    form = (
        f'<form toolname="{name}" tooldescription="Book a table" action="/book" '
        'method="post"><input name="date" type="date"></form>'
    )
    paths["/"] = html_reply(
        jsonld_page(origin, f"home_{name}").replace("<body>hello", f"<body>{form}")
    )


def _jsonld(origin: str, name: str, n: int, specs: str, paths: Paths, expected: set[str]) -> None:
    expected.clear()  # the homepage alone


BUILDERS: dict[str, Callable[..., None]] = {
    "agent_actions": _agent_actions,
    "sitemap": _sitemap,
    "link_tag": _link_tag,
    "link_header": _link_header,
    "ai_plugin": _ai_plugin,
    "agentmap": _agentmap,
    "a2a": _a2a,
    "mcp": _mcp,
    "llms": _llms,
    "wildcard": _wildcard,
    "schemamap": _schemamap,
    "webmcp": _webmcp,
    "jsonld": _jsonld,
}
