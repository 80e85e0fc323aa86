#!/usr/bin/env python3
"""Builds a lesson's notes as a static site, one HTML page per chapter and language (issue 25).

  grader/site/build_site.py OUT_DIR                  the student edition
  grader/site/build_site.py OUT_DIR --instructor     the instructor edition
  cmake --build build/dev --target site              both: build/dev/site/{student,instructor}

Reads lessons/<lesson>/README.md (the index, index.<lang>.html and index.html) and every
chapter lessons/<lesson>/notes/NN-<name>.<en|zh>.md found (a glob: a new chapter needs no
edit here); the instructor edition adds solutions/<lesson>/notes/instructor.<en|zh>.md and
solutions/<lesson>/answers.md. Blocks between <!-- instructor-only --> and
<!-- end instructor-only --> are left out of the student edition, as `grader dev release`
leaves them out, and a student page that still links into solutions/ stops the build.

pandoc (GitHub Markdown with $…$ math) writes each page with template.html and two Lua
filters: mermaid.lua draws the ```mermaid diagrams (Graphviz for flowcharts, HTML for
sequence diagrams) and links.lua points links at the generated pages. KaTeX, copied with
its fonts from Debian's libjs-katex, renders the math in the browser (site.js): the site
loads nothing from the network and opens from disk. Course files the notes link to
(exercises, headers, folders) get a source page under files/. OUT_DIR/site.json lists the
pages, their diagrams and the warnings, for the course.site test (site_test.py).

Exit status: 0 built; 1 the course cannot be built as a site (a student page linking into
solutions/, an instructor block never closed, OUT_DIR not a site); 2 pandoc or KaTeX missing.
"""

import argparse
import concurrent.futures
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ROOT_DIR = ROOT  # the course read from: --root
KATEX = Path("/usr/share/javascript/katex")  # Debian's libjs-katex (fonts: fonts-katex)
LANGS = ("en", "zh")
OTHER = {"en": "zh", "zh": "en"}
BLOCK_START = "<!-- instructor-only -->"  # as in grader/src/commands/release.cpp
BLOCK_END = "<!-- end instructor-only -->"
CHAPTER = re.compile(r"(\d\d)-([A-Za-z0-9_-]+)\.(en|zh)\.md")
MARKDOWN = "gfm+tex_math_dollars+east_asian_line_breaks"

UI = {
    "en": {
        "student": "Student edition", "instructor": "Instructor edition",
        "switch": "中文", "switch_title": "这一页的中文版",
        "chapters": "Chapters", "instructor_group": "Instructor", "index": "Lesson index",
        "toc": "On this page", "pager": "Previous and next chapter",
        "prev": "Previous", "next": "Next", "answers": "Answers (answers.md)",
        "footer": "Built from <code>{src}</code> by grader/site/build_site.py: pandoc, KaTeX, Graphviz.",
        "untranslated": "(中文)", "file_title": "Course file", "folder_title": "Course folder",
        "file_meta": "A file of the course, shown as text ({lines} lines) · <a href=\"{raw}\">the file itself</a>",
        "binary_meta": "A file of the course ({size} bytes, not text) · <a href=\"{raw}\">the file itself</a>",
        "folder_meta": "A folder of the course: its files",
    },
    "zh": {
        "student": "学生版", "instructor": "教师版",
        "switch": "English", "switch_title": "This page in English",
        "chapters": "章节", "instructor_group": "教师", "index": "课程首页",
        "toc": "本页目录", "pager": "上一章与下一章",
        "prev": "上一章", "next": "下一章", "answers": "参考答案（answers.md）",
        "footer": "由 <code>{src}</code> 生成（grader/site/build_site.py：pandoc、KaTeX、Graphviz）。",
        "untranslated": "(English)", "file_title": "课程文件", "folder_title": "课程目录",
        "file_meta": "课程中的文件，按原文显示（{lines} 行）· <a href=\"{raw}\">原文件</a>",
        "binary_meta": "课程中的文件（{size} 字节，非文本）· <a href=\"{raw}\">原文件</a>",
        "folder_meta": "课程中的目录：其中的文件",
    },
}

HIGHLIGHT = {".cpp": "cpp", ".hpp": "cpp", ".h": "cpp", ".cc": "cpp", ".cu": "cpp", ".cuh": "cpp",
             ".py": "python", ".sh": "bash", ".json": "json", ".md": "markdown", ".cmake": "cmake",
             ".txt": "", ".svg": "xml", ".yml": "yaml", ".yaml": "yaml"}


class CourseError(Exception):
    """Something in the course keeps it from being built as a site (exit 1)."""


@dataclass
class Page:
    key: str         # chapter stem (00-lesson), index, instructor, answers, or files/<repo path>
    lang: str
    source: str      # the Markdown file, relative to the repository root
    out: str         # the page, relative to the site root
    kind: str        # index | chapter | instructor | answers | source
    title: str = ""
    number: str = ""
    label: str = ""  # the title in the navigation
    switch: str = ""  # the same page in the other language (or its index)
    math: int = 0
    diagrams: list = field(default_factory=list)
    needs: list = field(default_factory=list)


def warn(warnings, text):
    warnings.append(text)
    print(f"site: warning: {text}", file=sys.stderr)


def first_heading(markdown):
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            return re.sub(r"[`*$]", "", line[2:]).strip()
    return ""


def instructor_blocks(markdown, source, keep):
    """Drops (student) or marks (instructor) the <!-- instructor-only --> blocks."""
    out, open_at = [], 0
    for n, line in enumerate(markdown.splitlines(keepends=True), 1):
        t = line.strip()
        if t == BLOCK_START:
            if open_at:
                raise CourseError(f"{source}:{n}: {BLOCK_START} inside the block opened at line {open_at}")
            open_at = n
            if keep:
                out.append('\n<div class="instructor-only">\n\n')
        elif t == BLOCK_END:
            if not open_at:
                raise CourseError(f"{source}:{n}: {BLOCK_END} without {BLOCK_START}")
            open_at = 0
            if keep:
                out.append("\n</div>\n\n")
        elif keep or not open_at:
            out.append(line)
    if open_at:
        raise CourseError(f"{source}:{open_at}: {BLOCK_START} is never closed")
    return "".join(out)


def discover(root, lesson, instructor, warnings):
    """Every page of the edition, and the link map (repo path, lang → site path)."""
    lesson_dir = root / "lessons" / lesson
    readme = lesson_dir / "README.md"
    if not readme.is_file():
        raise CourseError(f"no {readme.relative_to(root)}: not a lesson with notes")
    rel = lambda p: p.relative_to(root).as_posix()
    pages, links = [], {}
    for lang in LANGS:
        pages.append(Page("index", lang, rel(readme), f"index.{lang}.html", "index"))
        for target in (rel(readme), rel(lesson_dir), rel(lesson_dir / "notes")):
            links[(target, lang)] = f"index.{lang}.html"
    chapters = {}
    for path in sorted((lesson_dir / "notes").glob("*.md")):
        m = CHAPTER.fullmatch(path.name)
        if not m:
            warn(warnings, f"{rel(path)}: not a chapter (NN-name.en.md or NN-name.zh.md): left out")
            continue
        stem = path.name[: -len(".en.md")]
        chapters.setdefault(stem, {})[m.group(3)] = path
        pages.append(Page(stem, m.group(3), rel(path), f"{stem}.{m.group(3)}.html", "chapter", number=m.group(1)))
        links[(rel(path), "*")] = pages[-1].out
    if instructor:
        sol = root / "solutions" / lesson
        for lang in LANGS:
            notes = sol / "notes" / f"instructor.{lang}.md"
            if not notes.is_file():
                raise CourseError(f"the instructor edition needs {rel(notes)}")
            pages.append(Page("instructor", lang, rel(notes), f"instructor.{lang}.html", "instructor"))
            links[(rel(notes), "*")] = pages[-1].out
            links[(rel(sol / "notes"), lang)] = pages[-1].out
            if (sol / "answers.md").is_file():
                pages.append(Page("answers", lang, rel(sol / "answers.md"), f"answers.{lang}.html", "answers"))
                links[(rel(sol / "answers.md"), lang)] = pages[-1].out
    by_key = {(p.key, p.lang): p for p in pages}
    for p in pages:
        twin = by_key.get((p.key, OTHER[p.lang]))
        if twin:
            p.switch = twin.out
        else:
            p.switch = f"index.{OTHER[p.lang]}.html"
            warn(warnings, f"{p.source}: no {OTHER[p.lang]} version: its language switch goes to the index")
    return pages, links


def titles(root, pages, lesson_title):
    """Each page's title (its first # heading) and navigation label; the site's name per language."""
    for p in pages:
        text = (root / p.source).read_text(encoding="utf-8")
        p.title = first_heading(text) or p.key
        if p.kind == "chapter":
            p.label = re.sub(r"^(Chapter\s+\d+\s*[·:]\s*|第\s*\d+\s*章\s*[·：:]\s*)", "", p.title)
        elif p.kind == "index":
            p.label = UI[p.lang]["index"]
        elif p.kind == "answers":
            p.label = UI[p.lang]["answers"]
        else:
            p.label = re.sub(r"^(Lesson\s+\d+\s*·\s*|第\s*\d+\s*课\s*·\s*)", "", p.title)
    # The site's name: the index's title, split into its languages at " · ".
    parts = [s.strip() for s in lesson_title.split(" · ")]
    return {"en": parts[0], "zh": parts[-1]}


def nav_html(pages, page, edition, root_prefix):
    ui = UI[page.lang]
    chapters = {}
    for p in pages:
        if p.kind == "chapter":
            chapters.setdefault(p.key, {})[p.lang] = p

    def item(p, label, number="", marker=""):
        current = ' class="current"' if p is page else ""
        num = f'<span class="num">{number}</span>' if number else ""
        aria = ' aria-current="page"' if p is page else ""
        return (f'<li{current}><a href="{root_prefix}{p.out}"{aria}>{num}{html.escape(label)}'
                f'{marker}</a></li>')

    index = next(p for p in pages if p.kind == "index" and p.lang == page.lang)
    out = [f'<p class="nav-group">{ui["chapters"]}</p>', "<ol>", item(index, index.label)]
    for key in sorted(chapters):
        p = chapters[key].get(page.lang)
        if p:
            out.append(item(p, p.label, p.number))
        else:  # only in the other language so far
            q = chapters[key][OTHER[page.lang]]
            out.append(item(q, q.label, q.number, f' <small>{ui["untranslated"]}</small>'))
    out.append("</ol>")
    if edition == "instructor":
        out += ['<div class="nav-instructor">', f'<p class="nav-group">{ui["instructor_group"]}</p>', "<ol>"]
        for p in pages:
            if p.kind in ("instructor", "answers") and p.lang == page.lang:
                out.append(item(p, p.label))
        out += ["</ol>", "</div>"]
    return "\n".join(out)


def pager_html(pages, page, root_prefix):
    """Previous and next: the index and the chapters in order; the instructor pages apart."""
    ui = UI[page.lang]
    for kinds in (("index", "chapter"), ("instructor", "answers")):
        if page.kind in kinds:
            order = [p for p in pages if p.lang == page.lang and p.kind in kinds]
            break
    else:
        return ""
    i = order.index(page)
    out = []
    if i > 0:
        p = order[i - 1]
        out.append(f'<a class="prev" rel="prev" href="{root_prefix}{p.out}"><small>← {ui["prev"]}</small>'
                   f'{html.escape(p.label)}</a>')
    if i + 1 < len(order):
        p = order[i + 1]
        out.append(f'<a class="next" rel="next" href="{root_prefix}{p.out}"><small>{ui["next"]} →</small>'
                   f'{html.escape(p.label)}</a>')
    return "\n".join(out)


def pandoc_args(page, pages, edition, site_names, tools, work, extra_vars):
    ui = UI[page.lang]
    root_prefix = "../" * page.out.count("/")
    variables = {
        "lang": page.lang,
        "other-lang": OTHER[page.lang],
        "pagetitle": html.escape(f"{page.title} · {site_names[page.lang]}"),
        "root": root_prefix,
        "index-href": f"index.{page.lang}.html",
        "site-title": html.escape(site_names[page.lang]),
        "edition": edition,
        "edition-label": ui[edition],
        "kind": page.kind,
        "switch-href": root_prefix + page.switch,
        "switch-label": ui["switch"],
        "switch-title": ui["switch_title"],
        "nav-label": ui["chapters"],
        "nav": nav_html(pages, page, edition, root_prefix),
        "pager": pager_html(pages, page, root_prefix),
        "pager-label": ui["pager"],
        "toc-label": ui["toc"],
        "footer": ui["footer"].format(src=html.escape(page.source)),
    }
    variables.update(extra_vars)
    # The variables go in a defaults file, which pandoc reads as UTF-8: on the command line
    # a non-ASCII value is decoded with the locale's encoding (mangled under LANG=C).
    defaults = work / (page.out.replace("/", "_") + ".defaults.json")
    defaults.write_text(json.dumps({"variables": {k: v for k, v in variables.items() if v != ""}},
                                   ensure_ascii=False), encoding="utf-8")
    return [tools["pandoc"], "--defaults", str(defaults), "--standalone", "--template", str(HERE / "template.html"),
            "-t", "html5", "--wrap=none"]


def run_pandoc(args, env, what):
    # pandoc writes its warnings in the locale's encoding: UTF-8 whatever the caller's locale.
    env = dict(env, LC_ALL="C.UTF-8")
    r = subprocess.run(args, env=env, capture_output=True, encoding="utf-8", errors="replace")
    if r.returncode != 0:
        raise CourseError(f"pandoc failed on {what} (exit {r.returncode}):\n{r.stderr.strip()}")
    return r.stderr.strip()


TOC = re.compile(r'(<p class="toc-title">[^\n]*</p>\n<ul>\n)<li><a href="#[^"]*"[^>]*>[^\n]*</a>\n<ul>\n'
                 r'(.*)\n</ul></li>\n(</ul>\n</aside>)', re.S)


def flatten_toc(path):
    """A page's contents list starts at its sections: the title (its one h1) is left out."""
    text = path.read_text(encoding="utf-8")
    if text.count("<h1") == 1:
        text = TOC.sub(r"\1\2\n\3", text, count=1)
        path.write_text(text, encoding="utf-8")


def build_page(page, pages, edition, site_names, tools, work, out_dir, linkmap_file, warnings):
    """Writes one Markdown page with pandoc; reads back what the filters reported."""
    text = (ROOT_DIR / page.source).read_text(encoding="utf-8")
    text = instructor_blocks(text, page.source, keep=edition == "instructor")
    src = work / (page.out.replace("/", "_") + ".md")
    src.write_text(text, encoding="utf-8")
    report = work / (page.out.replace("/", "_") + ".report")
    env = dict(os.environ, SITE_SOURCE=page.source, SITE_PAGE=page.out, SITE_LANG=page.lang,
               SITE_LINKMAP=str(linkmap_file), SITE_REPORT=str(report), SITE_DOT=tools.get("dot") or "")
    args = pandoc_args(page, pages, edition, site_names, tools, work, {})
    args += ["-f", MARKDOWN, "--katex", "--toc", "--toc-depth=3", "--lua-filter", str(HERE / "mermaid.lua"),
             "--lua-filter", str(HERE / "links.lua"), str(src), "-o", str(out_dir / page.out)]
    stderr = run_pandoc(args, env, page.source)
    if stderr:
        warn(warnings, f"{page.source}: pandoc: {stderr}")
    flatten_toc(out_dir / page.out)
    for line in report.read_text(encoding="utf-8").splitlines() if report.exists() else []:
        f = line.split("\t")
        if f[0] == "diagram":
            page.diagrams.append({"status": f[1], "kind": f[2], "why": f[3] if len(f) > 3 else ""})
            if f[1] != "drawn":
                warn(warnings, f"{page.source}: a {f[2]} diagram is shown as its source: {f[3]}")
        elif f[0] == "math":
            page.math = int(f[1])
        elif f[0] == "need":
            page.needs.append((f[1], f[2]))


def source_view_markdown(repo_path, lang, root):
    """The Markdown of a course file's or folder's page under files/."""
    ui = UI[lang]
    path = root / repo_path
    name = path.name
    if path.is_dir():
        entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
        lines = [f"# `{repo_path}/`", "", f'<p class="source-meta">{ui["folder_meta"]}</p>', ""]
        for p in entries:
            if p.is_file():
                lines.append(f"- [`{p.name}`]({name}/{p.name}.{lang}.html)")
            else:
                lines.append(f"- `{p.name}/`")
        return "\n".join(lines) + "\n"
    data = path.read_bytes()
    if b"\0" in data:
        meta = ui["binary_meta"].format(size=len(data), raw=html.escape(name))
        return f"# `{repo_path}`\n\n<p class=\"source-meta\">{meta}</p>\n"
    text = data.decode("utf-8", errors="replace")
    fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    language = HIGHLIGHT.get(path.suffix.lower(), "")
    classes = f".{language} .numberLines" if language else ".numberLines"
    meta = ui["file_meta"].format(lines=text.count("\n") + (not text.endswith("\n")), raw=html.escape(name))
    body = f"# `{repo_path}`\n\n<p class=\"source-meta\">{meta}</p>\n\n{fence}{{{classes}}}\n{text}"
    if not text.endswith("\n"):
        body += "\n"
    return body + fence + "\n"


def build_views(needs, pages, edition, site_names, tools, work, out_dir, warnings, jobs):
    """Source pages (both languages) and copies for the course files the pages link to: a
    linked file gets a page and a copy, a linked folder a page listing its files (which get
    theirs), an image a copy."""
    views, assets = set(), set()
    for kind, repo in sorted(set(needs)):
        if repo.split("/")[0] == "solutions" and edition != "instructor":
            raise CourseError(f"a student page links into solutions/: {repo} "
                              f"(put the link in an {BLOCK_START} block)")
        path = ROOT_DIR / repo
        if not path.exists():
            warn(warnings, f"a link to {repo}, which does not exist")
        elif kind == "asset":
            assets.add(repo)
        else:
            views.add(repo)
            if path.is_dir():
                views |= {f"{repo}/{p.name}" for p in path.iterdir() if p.is_file() and not p.name.startswith(".")}
    assets |= {repo for repo in views if (ROOT_DIR / repo).is_file()}
    for repo in sorted(assets):
        dest = out_dir / "files" / repo
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT_DIR / repo, dest)

    def one(item):
        repo, lang = item
        out = f"files/{repo}.{lang}.html"
        page = Page(f"files/{repo}", lang, repo, out, "source", switch=f"files/{repo}.{OTHER[lang]}.html")
        page.title = repo
        src = work / (out.replace("/", "_") + ".md")
        src.write_text(source_view_markdown(repo, lang, ROOT_DIR), encoding="utf-8")
        (out_dir / out).parent.mkdir(parents=True, exist_ok=True)
        args = pandoc_args(page, pages, edition, site_names, tools, work, {})
        args += ["-f", "markdown", str(src), "-o", str(out_dir / out)]
        run_pandoc(args, dict(os.environ), repo)
        return page

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, [(repo, lang) for repo in sorted(views) for lang in LANGS]))


def copy_assets(out_dir):
    katex = out_dir / "assets" / "katex"
    katex.mkdir(parents=True)
    for name in ("katex.min.js", "katex.min.css"):
        shutil.copyfile(KATEX / name, katex / name)  # katex.min.js is a link to katex.js
    shutil.copytree(KATEX / "fonts", katex / "fonts", symlinks=False)
    for name in ("site.css", "site.js"):
        shutil.copyfile(HERE / name, out_dir / "assets" / name)


def tool_versions(tools):
    versions = {}
    r = subprocess.run([tools["pandoc"], "--version"], capture_output=True, text=True)
    versions["pandoc"] = r.stdout.split("\n")[0].split()[-1] if r.returncode == 0 else "?"
    m = re.search(r'version:\s*"([\d.]+)"', (KATEX / "katex.min.js").read_text(encoding="utf-8", errors="replace"))
    versions["katex"] = m.group(1) if m else "?"
    if tools.get("dot"):
        r = subprocess.run([tools["dot"], "-V"], capture_output=True, text=True)
        m = re.search(r"version (\S+)", r.stderr + r.stdout)
        versions["graphviz"] = m.group(1) if m else "?"
    return versions


def prepare_out(out_dir):
    if out_dir.exists():
        if any(out_dir.iterdir()) and not (out_dir / "site.json").is_file():
            raise CourseError(f"{out_dir} exists and holds no site built by this script (site.json): "
                              "not replacing it")
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)


def build(out_dir, lesson, edition, jobs):
    started = time.monotonic()
    tools = {"pandoc": shutil.which("pandoc"), "dot": shutil.which("dot")}
    if not tools["pandoc"]:
        print("site: pandoc not found: install it with `sudo apt-get install pandoc` (or run .ci/install-deps)",
              file=sys.stderr)
        return 2
    if not (KATEX / "katex.min.js").is_file() or not (KATEX / "fonts").is_dir():
        print(f"site: KaTeX not found in {KATEX}: install it with `sudo apt-get install libjs-katex` "
              "(or run .ci/install-deps)", file=sys.stderr)
        return 2
    warnings = []
    if not tools["dot"]:
        warn(warnings, "Graphviz (dot) not found: flowcharts are shown as their Mermaid source "
             "(sudo apt-get install graphviz)")
    pages, links = discover(ROOT_DIR, lesson, edition == "instructor", warnings)
    readme_title = first_heading((ROOT_DIR / "lessons" / lesson / "README.md").read_text(encoding="utf-8"))
    site_names = titles(ROOT_DIR, pages, readme_title)
    prepare_out(out_dir)
    with tempfile.TemporaryDirectory(prefix="course-site-") as tmp:
        work = Path(tmp)
        linkmap_file = work / "linkmap.tsv"
        linkmap_file.write_text("".join(f"{r}\t{l}\t{s}\n" for (r, l), s in sorted(links.items())), encoding="utf-8")
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futures = [pool.submit(build_page, p, pages, edition, site_names, tools, work, out_dir,
                                   linkmap_file, warnings) for p in pages]
            for f in futures:
                f.result()
        needs = [n for p in pages for n in p.needs]
        views = build_views(needs, pages, edition, site_names, tools, work, out_dir, warnings, jobs)
    copy_assets(out_dir)
    shutil.copyfile(out_dir / "index.en.html", out_dir / "index.html")
    diagrams = [d for p in pages for d in p.diagrams]
    manifest = {
        "edition": edition,
        "lesson": lesson,
        "tools": tool_versions(tools),
        "pages": [{"path": p.out, "lang": p.lang, "kind": p.kind, "source": p.source, "switch": p.switch,
                   "title": p.title, "math": p.math, "diagrams": p.diagrams}
                  for p in pages + views],
        "aliases": {"index.html": "index.en.html"},
        "warnings": warnings,
    }
    (out_dir / "site.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    drawn = sum(d["status"] == "drawn" for d in diagrams)
    print(f"site: {edition} edition of {lesson}: {len(pages)} pages "
          f"({sum(p.kind == 'chapter' for p in pages)} chapter pages), {len(views)} source pages, "
          f"{drawn} diagrams drawn, {len(diagrams) - drawn} shown as source, {len(warnings)} warnings "
          f"-> {out_dir} ({time.monotonic() - started:.1f} s)")
    return 0


def main():
    global ROOT_DIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the site's folder (replaced if it holds an earlier site)")
    ap.add_argument("--instructor", action="store_true", help="the instructor edition (needs solutions/)")
    # The first lesson with a manifest unless told: the site names no lesson itself.
    first = sorted(ROOT.glob("lessons/*/manifest.json"))
    ap.add_argument("--lesson", default=first[0].parent.name if first else None)
    ap.add_argument("--root", type=Path, default=ROOT, help="the course's repository (default: this one)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    ROOT_DIR = a.root.resolve()
    try:
        return build(a.out.resolve(), a.lesson, "instructor" if a.instructor else "student", max(1, a.jobs))
    except CourseError as e:
        print(f"site: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
