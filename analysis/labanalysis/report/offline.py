"""What a report loads from the network, which must be nothing: a report.html opens offline, behind a firewall, and calls no third party.

A link a reader may click (`<a href>`) is not a load. A load is what a browser fetches by itself as it opens the page: a script, a
stylesheet, a font, an image, a frame, an object, a CSS url() or @import, and a URL a script's text fetches (an import()). Embedded
data (`data:`) and paths relative to the report are not from the network.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# The attributes by which an element makes the browser fetch something.
LOADING = {
    "script": ("src",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "image": ("href", "xlink:href"),
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "input": ("src",),
    "use": ("href", "xlink:href"),
}
REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
CSS_LOAD = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])\s*((?:[a-z][a-z0-9+.-]*:)?//[^'")\s]+)""", re.IGNORECASE)
# In a script's text: a URL in quotes, which a script fetches (import(), fetch, a src it sets); a URL in a comment is no load.
JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:'\"\\])//[^\n]*", re.DOTALL)
JS_URL = re.compile(r"""['"`]((?:https?:)?//[^'"`\s]+)""", re.IGNORECASE)
# XML namespaces (createElementNS's SVG and MathML) are names that look like URLs; nothing fetches them.
NAMESPACE = re.compile(r"^http://www\.w3\.org/")


def external_loads(html: str) -> list[str]:
    """Every URL on the network `html` would load as it opens, one `<element attribute>: url` each; empty for a self-contained page."""
    finder = _Loads()
    finder.feed(html)
    finder.close()
    return finder.found


def _remote_in_srcset(value: str) -> list[str]:
    return [part.split()[0] for part in value.split(",") if part.split() and REMOTE.match(part.split()[0])]


class _Loads(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in LOADING.get(tag, ()):
                urls = _remote_in_srcset(value) if name == "srcset" else [value] if REMOTE.match(value) else []
                self.found += [f"<{tag} {name}>: {url}" for url in urls]
            if name == "style":
                self.found += [f"<{tag} style>: {url}" for url in CSS_LOAD.findall(CSS_COMMENT.sub("", value))]
        self._in = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "style":
            self.found += [f"<style>: {url}" for url in CSS_LOAD.findall(CSS_COMMENT.sub("", data))]
        elif self._in == "script":
            urls = JS_URL.findall(JS_COMMENT.sub("", data))
            self.found += [f"<script>: {url}" for url in urls if not NAMESPACE.match(url)]
