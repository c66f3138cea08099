"""The frame of every HTML page the grader writes: one self-contained file, readable on a phone.

No script, no font, no style sheet and no image is fetched: the styles are inline, the
images are ``data:`` URIs, and the page's Content-Security-Policy forbids anything else,
so a page opened from a mail or a course site loads nothing from the network. Every text
that comes from a student goes through :func:`autograder.escape.html_text`.
"""

from __future__ import annotations

import base64

from autograder.escape import html_text

#: Nothing but inline styles and data: images may load.
CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
#: Styles: one column that fits a phone's width, tables that scroll sideways instead of overflowing.
STYLE = """
:root { color-scheme: light; --ok: #1a7f37; --fail: #b42318; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; margin: 0 auto;
       max-width: 60rem; padding: 1rem; color: #1f2328; background: #fff; overflow-wrap: anywhere; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
.muted { color: var(--muted); } .ok { color: var(--ok); } .fail { color: var(--fail); }
.score { font-size: 1.25rem; font-weight: 600; }
.bar { background: #eaeef2; border-radius: 4px; height: .6rem; overflow: hidden; margin: .25rem 0 .75rem; }
.bar > span { display: block; height: 100%; background: var(--ok); }
.bar.partial > span { background: #bf8700; } .bar.zero > span { background: var(--fail); }
section.question { border-top: 1px solid var(--line); padding-top: .5rem; }
pre { white-space: pre-wrap; background: #f6f8fa; border-radius: 6px; padding: .5rem .75rem; margin: .25rem 0;
      font: 14px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.diagnosis { border-left: 4px solid #bf8700; background: #fff8c5; padding: .5rem .75rem; margin: .5rem 0; border-radius: 0 6px 6px 0; }
.note { border-left: 4px solid #0969da; background: #ddf4ff; padding: .5rem .75rem; margin: .5rem 0; border-radius: 0 6px 6px 0; }
figure { margin: .75rem 0; } figure img { display: block; width: 100%; max-width: 40rem; height: auto; }
figcaption { color: var(--muted); font-size: .9rem; }
.table { overflow-x: auto; } table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: right; overflow-wrap: normal; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
td.text { text-align: left; white-space: normal; min-width: 14rem; }
ul { padding-left: 1.25rem; }
"""


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def image(png: bytes, alt: str, css_class: str) -> str:
    """An inline ``<img>`` of a PNG."""
    return f'<img class="{html_text(css_class)}" alt="{html_text(alt)}" src="{png_data_uri(png)}">'


def score_bar(score: float, maximum: float) -> str:
    """A bar filled in proportion of the score (green full, amber partial, red none)."""
    share = 0.0 if maximum <= 0 else max(0.0, min(1.0, score / maximum))
    state = "" if share >= 1 else ("zero" if share == 0 else "partial")
    return f'<div class="bar {state}" role="img" aria-label="{share:.0%}"><span style="width:{share * 100:.1f}%"></span></div>'


def page(title: str, body: str, lang: str = "en") -> str:
    """A whole HTML document around ``body`` (already HTML), with ``title`` escaped."""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html_text(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
        f"<title>{html_text(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
