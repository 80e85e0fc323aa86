#!/usr/bin/env python3
"""The rendered course's test, run by ctest as course.site (grader/site/CMakeLists.txt).

  grader/site/site_test.py [--screenshots DIR] [--keep DIR] [--lesson LESSON]

Builds the student and the instructor edition (build_site.py) into a temporary folder,
then checks every page, first from its HTML and then loaded in headless Chromium, driven
through chromedriver's WebDriver protocol over plain HTTP (urllib; browser.py), with no
network:
  - math: on a page with math, KaTeX rendered every formula (.katex), none is a
    .katex-error, and no $…$ is left in the text;
  - diagrams: every ```mermaid block is drawn (an SVG of a sensible size, or a sequence
    diagram with its participants), none left as code or showing an error;
  - no console errors (JavaScript exceptions, failed loads), no image that fails to load,
    nothing loaded from outside the site (no CDN: no http(s) resource in the HTML or CSS,
    and the browser's resource list holds only file: URLs), no page wider than the window;
  - every internal link and image resolves to a file of the site (and its #anchor to an
    id there); every page has one zh/en switch, to an existing page, the same chapter in
    the other language when that exists, and every chapter exists in both languages;
  - the student edition holds no instructor content: no instructor or answers page, no
    link into solutions/, no instructor-only block, and none of the instructor edition's
    own paragraphs (those of the instructor pages and blocks that appear in no student
    file); the instructor edition does hold them, so the check is not vacuous;
  - screenshots of the lab chapters (05-kernel-anatomy, 06-labs) in both languages, the
    page's top and its first figure: PNGs decoded by browser.py (zlib + struct), of the expected
    size, not blank. Kept in --screenshots DIR.
Exit 0 all passed, 1 a check failed (each failure on a line), 77 a tool is missing (skip).
"""

import argparse
import html.parser
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the checkout (grader.out_of_source)
from browser import SCREEN, Browser, ink  # noqa: E402  (grader/site/browser.py)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LAB_CHAPTERS = ("05-kernel-anatomy", "06-labs")
REQUIRED_SCREENSHOTS = LAB_CHAPTERS
DRAWN_KINDS = ("flowchart", "sequence")  # mermaid.lua draws these; others may show as source

failures = []


def fail(text):
    failures.append(text)


# ------------------------------------------------------------------------------------
# The static pages


class PageParser(html.parser.HTMLParser):
    """A page's links, resources, ids, language switches and text (outside scripts)."""

    LOADS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src",
             "audio": "src", "embed": "src", "object": "data", "track": "src"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.loads, self.ids, self.switches = [], [], set(), []
        self.text, self.blocks, self._skip, self._block = [], [], 0, None
        self.mermaid_code, self.instructor_blocks = 0, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.ids.add(a["name"])
        cls = (a.get("class") or "").split()
        if tag == "a" and a.get("href") is not None:
            self.links.append(a["href"])
            if "lang-switch" in cls:
                self.switches.append(a["href"])
        if tag == "link" and a.get("href"):
            (self.loads if "stylesheet" in (a.get("rel") or "") or "icon" in (a.get("rel") or "")
             else self.links).append(a["href"])
        if tag in self.LOADS and a.get(self.LOADS[tag]):
            self.loads.append(a[self.LOADS[tag]])
        if tag == "code" and "mermaid" in cls or tag == "pre" and "mermaid" in cls:
            self.mermaid_code += 1
        if "instructor-only" in cls:
            self.instructor_blocks += 1
        if tag in ("script", "style"):
            self._skip += 1
        if tag in ("p", "li", "h1", "h2", "h3", "h4", "td", "th", "blockquote"):
            self._block = []

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
        if tag in ("p", "li", "h1", "h2", "h3", "h4", "td", "th", "blockquote") and self._block is not None:
            self.blocks.append("".join(self._block))
            self._block = None

    def handle_data(self, data):
        if self._skip:
            return
        self.text.append(data)
        if self._block is not None:
            self._block.append(data)


def squash(text):
    """Text compared as a fingerprint: no spaces, no Markdown punctuation."""
    return re.sub(r"[\s`*_#|>\[\]()$\\~-]+", "", text)


def parse_site(site):
    pages = {}
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel.startswith("assets/"):
            continue
        p = PageParser()
        p.feed(path.read_text(encoding="utf-8"))
        pages[rel] = p
    return pages


def check_static(site, edition, pages, manifest):
    names = set(pages)
    for rel, p in pages.items():
        where = f"{edition}/{rel}"
        for url in p.loads:
            if re.match(r"^(?:[a-z][a-z0-9+.-]*:|//)", url, re.I) and not url.startswith("data:"):
                fail(f"{where}: loads {url} from outside the site")
        for url in p.links + [u for u in p.loads if not re.match(r"^[a-z][a-z0-9+.-]*:", u, re.I)]:
            if re.match(r"^(?:[a-z][a-z0-9+.-]*:|//)", url, re.I):
                continue  # the web, mailto: never loaded
            target, _, frag = url.partition("#")
            target = urllib.parse.unquote(target.split("?")[0])
            dest = (site / rel).parent / target if target else site / rel
            try:
                dest_rel = dest.resolve().relative_to(site.resolve()).as_posix()
            except ValueError:
                fail(f"{where}: link {url} leaves the site")
                continue
            if not dest.exists():
                fail(f"{where}: link {url} points to no file")
            elif frag and dest_rel in pages and urllib.parse.unquote(frag) not in pages[dest_rel].ids:
                fail(f"{where}: link {url}: no #{urllib.parse.unquote(frag)} in {dest_rel}")
        if len(p.switches) != 1:
            fail(f"{where}: {len(p.switches)} language switches (want 1)")
        else:
            target = ((site / rel).parent / p.switches[0]).resolve()
            m = re.fullmatch(r"(.*)\.(en|zh)\.html", rel)
            twin = f"{m.group(1)}.{'zh' if m.group(2) == 'en' else 'en'}.html" if m else None
            if not target.exists():
                fail(f"{where}: the language switch points to {p.switches[0]}, which does not exist")
            elif twin and twin in names and target != (site / twin).resolve():
                fail(f"{where}: the language switch points to {p.switches[0]}, not to {twin}")
        if p.mermaid_code:
            fail(f"{where}: {p.mermaid_code} mermaid block(s) left as code")
    for rel in pages:
        cdn = re.search(r"(?:https?:)?//[^\s\"'<>]*(?:jsdelivr|unpkg|cdnjs|googleapis|gstatic)",
                        (site / rel).read_text(encoding="utf-8"), re.I)
        if cdn:
            fail(f"{edition}/{rel}: names a CDN ({cdn.group(0)})")
    for css in (site / "assets").rglob("*.css"):
        if re.search(r"url\(\s*['\"]?(?:https?:)?//", css.read_text(encoding="utf-8")):
            fail(f"{edition}/{css.relative_to(site)}: loads a file from the web")
    chapters = {}
    for entry in manifest["pages"]:
        if entry["kind"] == "chapter":
            chapters.setdefault(entry["path"].rsplit(".", 2)[0], set()).add(entry["lang"])
        for d in entry["diagrams"]:
            if d["status"] != "drawn" and d["kind"] in DRAWN_KINDS:
                fail(f"{edition}/{entry['path']}: a {d['kind']} diagram is not drawn: {d['why']}")
            elif d["status"] != "drawn":
                print(f"  note: {edition}/{entry['path']}: a {d['kind']} diagram is shown as its source")
    for stem, langs in sorted(chapters.items()):
        if langs != {"en", "zh"}:
            fail(f"{edition}: chapter {stem} exists only in {', '.join(sorted(langs))}")
    return chapters


def instructor_fingerprints(root, lesson, student_pages, instructor_pages):
    """Paragraphs (p, li, headings, cells) that only the instructor edition may hold: those of
    a page both editions have that the student's page lacks (the instructor-only blocks), and
    those of the instructor pages that no student file holds (answers.md shares its
    questions with exercises/<lesson>/answers.md, which students see)."""
    student_text = []
    for path in list((root / "lessons" / lesson).rglob("*.md")) + list((root / "exercises" / lesson).rglob("*")):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            text = re.sub(r"<!-- instructor-only -->.*?<!-- end instructor-only -->", "", text, flags=re.S)
            student_text.append(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text))  # [text](link) → text
    student = squash("\n".join(student_text))
    prints = set()
    for rel, p in instructor_pages.items():
        if rel in student_pages:
            shared = {squash(b) for b in student_pages[rel].blocks}
            prints |= {squash(b) for b in p.blocks if squash(b) not in shared and len(squash(b)) >= 30}
        elif rel.startswith(("instructor.", "answers.")):
            prints |= {squash(b) for b in p.blocks if len(squash(b)) >= 40 and squash(b) not in student}
    return prints


def check_editions(student_pages, instructor_pages, root, lesson):
    for rel, p in student_pages.items():
        if re.match(r"(instructor|answers)\.", rel) or rel.startswith("files/solutions/"):
            fail(f"student/{rel}: an instructor page in the student edition")
        for url in p.links + p.loads:
            if "solutions/" in url:
                fail(f"student/{rel}: links into solutions/: {url}")
        if p.instructor_blocks:
            fail(f"student/{rel}: holds an instructor-only block")
    if not instructor_pages:
        return 0
    prints = instructor_fingerprints(root, lesson, student_pages, instructor_pages)
    if len(prints) < 10:
        fail(f"only {len(prints)} paragraphs of instructor content found in the instructor edition")
    instructor_text = squash("".join("".join(p.text) for p in instructor_pages.values()))
    missing = [s for s in prints if s not in instructor_text]
    if missing:
        fail(f"instructor edition: {len(missing)} instructor paragraphs not found (the check would be vacuous)")
    for rel, p in student_pages.items():
        text = squash("".join(p.text))
        leaked = [s for s in prints if s in text]
        if leaked:
            fail(f"student/{rel}: holds {len(leaked)} instructor paragraph(s), e.g. {leaked[0][:60]}…")
    for name in ("instructor.en.html", "instructor.zh.html"):
        if name not in instructor_pages:
            fail(f"instructor edition: no {name}")
    if not any(p.instructor_blocks for p in instructor_pages.values()):
        fail("instructor edition: the index's instructor-only block is missing")
    return len(prints)


# ------------------------------------------------------------------------------------
# The browser (browser.py)


# What one page reports once loaded: waits for KaTeX (site.js marks the page) and the fonts.
INSPECT = r"""
const done = arguments[arguments.length - 1];
const t0 = Date.now();
function ready() {
  if (document.readyState !== "complete" || document.documentElement.dataset.math !== "rendered") {
    if (Date.now() - t0 < 30000) return setTimeout(ready, 50);
  }
  document.fonts.ready.then(inspect, inspect);
}
function inspect() {
  const q = (s) => Array.from(document.querySelectorAll(s));
  const r = {};
  r.mathRendered = document.documentElement.dataset.math === "rendered";
  r.math = q("span.math").length;
  r.katex = q(".katex").length;
  r.unrendered = q("span.math").filter((e) => !e.querySelector(".katex")).length;
  r.katexErrors = q(".katex-error").map((e) => e.getAttribute("title") || e.textContent).slice(0, 3);
  const art = document.querySelector("article");
  let leftover = [];
  if (art) {
    const c = art.cloneNode(true);
    c.querySelectorAll("pre, code, .katex, span.math, figure.diagram-source, .diagram-src").forEach((e) => e.remove());
    leftover = (c.textContent.match(/\$[^$\s][^$]{0,40}/g) || []).slice(0, 3);
  }
  r.texLeft = leftover;
  r.diagrams = q("figure.diagram").length;
  // A flowchart is an SVG with its nodes, not shrunk below 55% of dot's size (12 pt text
  // would fall under 9 px: unreadable).
  r.badFlowcharts = q("figure.diagram-flowchart").filter((f) => {
    const s = f.querySelector("svg"); if (!s || !s.querySelector("g.node")) return true;
    const b = s.getBoundingClientRect(), natural = s.viewBox.baseVal.width * 4 / 3;
    return b.width < 80 || b.height < 30 || b.width / natural < 0.55;
  }).length;
  r.badSequences = q("figure.diagram-sequence").filter((f) => {
    const s = f.querySelector(".seq"); if (!s) return true;
    const b = s.getBoundingClientRect();
    return b.height < 60 || s.querySelectorAll(".seq-actor").length < 2 || !s.querySelector(".seq-msg, .seq-note");
  }).length;
  r.sourceBoxes = q("figure.diagram-source").length;
  r.figures = q("figure.diagram, article img").length;
  r.errorText = /Syntax error in (graph|text)|Parse error on line|mermaid version \d/.test(art ? art.innerText : "");
  r.badImages = q("img").filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.getAttribute("src"));
  r.outside = performance.getEntriesByType("resource").map((e) => e.name)
    .filter((u) => !u.startsWith("file:") && !u.startsWith("data:"));
  r.fontErrors = Array.from(document.fonts).filter((f) => f.status === "error").map((f) => f.family);
  r.viewport = [window.innerWidth, window.innerHeight];
  r.tooWide = document.documentElement.scrollWidth > window.innerWidth + 1;
  r.wideCulprits = r.tooWide ? q("article *").filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
    .slice(0, 3).map((e) => e.tagName + "." + e.className) : [];
  done(r);
}
ready();
"""


def check_in_browser(browser, site, edition, pages, shots_dir, shot_stems):
    counts = {"pages": 0, "math": 0, "diagrams": 0, "warnings": 0, "shots": 0}
    warnings = []
    for rel in sorted(pages):
        where = f"{edition}/{rel}"
        browser.open((site / rel).resolve().as_uri())
        r = browser.async_script(INSPECT)
        counts["pages"] += 1
        if not r["mathRendered"]:
            fail(f"{where}: site.js never marked the math rendered (KaTeX not loaded?)")
        if r["math"]:
            counts["math"] += 1
            if r["katex"] == 0 or r["unrendered"]:
                fail(f"{where}: {r['unrendered']} of {r['math']} formulas not rendered by KaTeX")
        if r["katexErrors"]:
            fail(f"{where}: KaTeX errors: {r['katexErrors']}")
        if r["texLeft"]:
            fail(f"{where}: TeX left in the text: {r['texLeft']}")
        counts["diagrams"] += r["diagrams"]
        if r["badFlowcharts"] or r["badSequences"]:
            fail(f"{where}: {r['badFlowcharts']} flowchart(s), {r['badSequences']} sequence diagram(s) not drawn")
        if r["errorText"]:
            fail(f"{where}: an error message in the page's text")
        if r["badImages"]:
            fail(f"{where}: images that do not load: {r['badImages']}")
        if r["outside"]:
            fail(f"{where}: loaded from outside the site: {r['outside'][:3]}")
        if r["fontErrors"]:
            fail(f"{where}: fonts that failed to load: {sorted(set(r['fontErrors']))[:3]}")
        if r["tooWide"]:
            fail(f"{where}: wider than the window ({r['wideCulprits']})")
        for entry in browser.console():
            if entry["level"] == "SEVERE":
                fail(f"{where}: console error: {entry['message'][:300]}")
            elif entry["level"] == "WARNING":
                counts["warnings"] += 1
                warnings.append(f"{where}: {entry['message'][:200]}")
        stem = rel.rsplit(".", 2)[0]
        if stem in shot_stems and "/" not in rel:
            take_shots(browser, rel, edition, r, shots_dir)
            counts["shots"] += 1
    for w in warnings[:5]:
        print(f"  console warning: {w}")
    return counts


def take_shots(browser, rel, edition, r, shots_dir):
    name = f"{edition}-{rel[:-5]}"
    browser.script("window.scrollTo(0, 0)")
    size = tuple(r["viewport"])
    if size[0] != SCREEN[0]:
        fail(f"{edition}/{rel}: the window is {size[0]} px wide, not {SCREEN[0]}")
    shots = [(f"{name}.png", browser.screenshot(), size, (250, 60, 1100, size[1]))]
    if r["figures"]:  # the first diagram or image
        shots.append((f"{name}.figure.png", browser.screenshot("figure.diagram, article img"), None, None))
    for file, data, size, box in shots:
        (shots_dir / file).write_bytes(data)
        try:
            (w, h), share, colours = ink(data, box)
        except (ValueError, zlib.error, IndexError, TypeError) as e:
            fail(f"screenshot {file}: not a readable PNG: {e}")
            continue
        if size and (w, h) != size:
            fail(f"screenshot {file}: {w}×{h}, not {size[0]}×{size[1]}")
        if share < 0.03 or colours < 8:
            fail(f"screenshot {file}: blank ({share:.1%} of pixels inked, {colours} colours)")
        print(f"  screenshot {shots_dir / file}: {w}×{h}, {share:.1%} inked, {colours}+ colours")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT)
    # The first lesson with a manifest unless told: the site names no lesson itself.
    first = sorted(ROOT.glob("lessons/*/manifest.json"))
    ap.add_argument("--lesson", default=first[0].parent.name if first else None)
    ap.add_argument("--screenshots", type=Path, help="where the screenshots go (default: the temporary folder)")
    ap.add_argument("--keep", type=Path, help="keep the built sites here instead of deleting them")
    a = ap.parse_args()
    tools = {n: shutil.which(n) for n in ("pandoc", "dot", "chromedriver")}
    tools["chromium"] = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = [n for n, p in tools.items() if not p]
    if missing:
        print(f"course.site: skipped, not installed: {', '.join(missing)} (.ci/install-deps installs them)")
        return 77
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="course-site-test-"))
    browser = None
    try:
        editions = ["student"]
        if (a.root / "solutions" / a.lesson / "notes").is_dir():
            editions.append("instructor")
        sites, parsed, timings = {}, {}, {}
        for edition in editions:
            site = work / edition
            t = time.monotonic()
            cmd = [sys.executable, str(HERE / "build_site.py"), str(site), "--lesson", a.lesson, "--root", str(a.root)]
            r = subprocess.run(cmd + (["--instructor"] if edition == "instructor" else []), capture_output=True, text=True)
            timings[edition] = time.monotonic() - t
            sys.stdout.write(r.stdout)
            sys.stdout.write("".join(f"  {line}\n" for line in r.stderr.splitlines()))
            if r.returncode != 0:
                fail(f"build_site.py {edition}: exit {r.returncode}")
                continue
            sites[edition] = site
            parsed[edition] = parse_site(site)
        if failures:
            raise SystemExit
        manifests = {e: json.loads((s / "site.json").read_text(encoding="utf-8")) for e, s in sites.items()}
        chapters = {}
        for edition, site in sites.items():
            chapters = check_static(site, edition, parsed[edition], manifests[edition])
        n_prints = check_editions(parsed["student"], parsed.get("instructor", {}), a.root, a.lesson)
        shot_stems = {s for s in LAB_CHAPTERS if s in chapters}
        for s in REQUIRED_SCREENSHOTS:
            if s not in chapters:
                fail(f"no chapter {s} to take screenshots of")
        shots_dir = a.screenshots or work / "screenshots"
        if shots_dir.exists():
            shutil.rmtree(shots_dir)
        shots_dir.mkdir(parents=True)
        t = time.monotonic()
        browser = Browser(tools["chromium"], tools["chromedriver"], work)
        totals = {}
        for edition, site in sites.items():
            c = check_in_browser(browser, site, edition, parsed[edition], shots_dir,
                                 shot_stems if edition == "student" else set())
            for k, v in c.items():
                totals[k] = totals.get(k, 0) + v
        if totals.get("shots", 0) != 2 * len(shot_stems):
            fail(f"{totals.get('shots', 0)} lab pages photographed, want {2 * len(shot_stems)}")
        browser_s = time.monotonic() - t
        print(f"course.site: built {', '.join(f'{e} {timings[e]:.1f} s' for e in sites)}; "
              f"{totals['pages']} pages loaded in Chromium in {browser_s:.1f} s "
              f"({totals['math']} with math, {totals['diagrams']} diagrams, {totals['warnings']} console warnings); "
              f"{n_prints} instructor paragraphs absent from the student edition; "
              f"{totals['shots']} lab pages photographed into {shots_dir}")
    except SystemExit:
        pass
    finally:
        if browser:
            browser.close()
        if a.keep:
            for edition in ("student", "instructor"):
                if (work / edition).exists():
                    dest = a.keep / edition
                    if dest.exists():
                        shutil.rmtree(dest)
                    shutil.copytree(work / edition, dest)
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print(f"FAIL {f}")
    print(f"course.site: {'FAIL' if failures else 'PASS'}, {len(failures)} failures, {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
