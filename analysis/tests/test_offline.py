"""What a report loads from the network: every way a page fetches by itself is found, and nothing a page only names or links."""

from labanalysis.report.offline import external_loads


def test_every_kind_of_load_by_url_is_found():
    page = """<html><head>
    <script src="https://cdn.example/require.js"></script>
    <link rel="stylesheet" href="//fonts.example/font.css">
    <link rel="icon" href="http://example.org/favicon.ico">
    <style>@import "https://example.org/more.css"; body { background: url('https://example.org/bg.png') }</style>
    <script>import("https://cdnjs.example/mermaid.esm.min.mjs")</script>
    </head><body>
    <img src="https://example.org/a.png" srcset="https://example.org/a2.png 2x, local.png 1x">
    <div style="background-image: url(https://example.org/c.png)"></div>
    <iframe src="https://example.org/frame"></iframe><object data="https://example.org/o.svg"></object>
    </body></html>"""

    found = external_loads(page)

    assert found == [
        "<script src>: https://cdn.example/require.js",
        "<link href>: //fonts.example/font.css",
        "<link href>: http://example.org/favicon.ico",
        "<style>: https://example.org/more.css",
        "<style>: https://example.org/bg.png",
        "<script>: https://cdnjs.example/mermaid.esm.min.mjs",
        "<img src>: https://example.org/a.png",
        "<img srcset>: https://example.org/a2.png",
        "<div style>: https://example.org/c.png",
        "<iframe src>: https://example.org/frame",
        "<object data>: https://example.org/o.svg",
    ]


def test_links_embedded_data_relative_paths_namespaces_and_comments_load_nothing():
    page = """<html><head>
    <style>/* after https://meyerweb.com/eric/tools/color-blend */ .a { background: url(data:image/png;base64,AAAA) }</style>
    <script>
    // see https://developer.mozilla.org/en-US/docs/Glossary/Void_element
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    </script>
    </head><body>
    <a href="https://github.com/grafana/k6">k6</a> <a href="vthread/k6-dashboard.html">vthread</a>
    <img src="data:image/png;base64,iVBORw0KGgo="> <img src="plot.png">
    <p>https://example.org in a sentence</p>
    </body></html>"""

    assert external_loads(page) == []
