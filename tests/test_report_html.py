"""The HTML report: content, escaping, determinism, and what a person sees in Chromium.

The browser test drives headless Chromium over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: no port, no extra package): it loads the report
from ``file://``, collects every console message, exception and log entry,
scrolls to a known discrepancy's marker, checks that it is on screen and not
covered, clicks it like a person would, checks that the claim's details opened
and show the row, and saves screenshots to ``reports/``. It skips, saying why,
only where no Chromium binary exists (``.ci/run`` installs Debian's ``chromium``).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from verifiers.files import write_output
from verifiers.report.html import build, mathml, write
from verifiers.run import run
from verifiers.verdicts import RunResult

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")

pytest_plugins = ["pytester"]


# --- fixtures -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_html(real_result: RunResult) -> str:
    return build(real_result)


NOTE = """第1章：小例子

1.1 平均

三个数 2、4、9 的平均是 6。总和是 15。
它们的最大值是 9，日期 2024 不算。

1.2 公式

\\frac{a + b}{2} = \\frac{a}{2} + \\frac{b}{2}
"""

CLAIMS = """note: tiny.txt
claims:
  - id: tiny-mean
    says: "the mean of the three numbers <script>alert('says')</script> & co"
    section: "1.1"
    text: 三个数 ⟨x[0]⟩、⟨x[1]⟩、⟨x[2]⟩ 的平均是 ⟨m⟩。总和是 ⟨s⟩。
    check:
      s: sum(x)
      m: s / 3
    known:
      m: {printed: "6", expected: "5", why: "<b>bold</b> the mean is 15/3 = 5, not 6"}
  - id: tiny-half
    kind: symbolic
    says: splitting a fraction
    section: "1.2"
    text: |
      公式

      ⟪F⟫
"""


def tiny_inputs(tmp: Path, claims: str = CLAIMS) -> tuple[Path, Path]:
    notes, cl = tmp / "notes", tmp / "claims" / "tiny"
    notes.mkdir(parents=True)
    cl.mkdir(parents=True)
    (notes / "tiny.txt").write_text(NOTE, encoding="utf-8")
    (cl / "01-mean.yaml").write_text(claims, encoding="utf-8")
    return notes, tmp / "claims"


# --- content --------------------------------------------------------------------------


def test_tiny_report_marks_numbers_and_formulas(tmp_path: Path) -> None:
    notes, claims = tiny_inputs(tmp_path)
    result = run(notes, claims)
    html = build(result)
    assert html.startswith("<!DOCTYPE html>")
    # every claim has a details element; numbers and formulas are marked and linked
    assert 'id="c-tiny-mean"' in html and 'id="c-tiny-half"' in html
    assert re.search(r'<a id="n1-\d+" class="mk n-verified"[^>]*href="#v-tiny-mean-\d+">15</a>',
                     html)
    assert 'class="mk f-verified"' in html  # the formula, underlined
    assert "<math" in html and "<mfrac>" in html  # the step rendered as MathML
    # uncovered literals are marked too (2024, the 9 of the second line)
    assert re.search(r'class="mk n-uncovered" title="uncovered[^"]*">2024</span>', html)
    # inputs hashed
    digest = __import__("hashlib").sha256((notes / "tiny.txt").read_bytes()).hexdigest()
    assert digest in html


def test_untrusted_text_is_escaped(tmp_path: Path) -> None:
    notes, claims = tiny_inputs(tmp_path)
    evil = "<script>alert(document.cookie)</script> 2024"
    (notes / "tiny.txt").write_text(NOTE.replace("日期 2024", evil), encoding="utf-8")
    html = build(run(notes, claims))
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(&#x27;says&#x27;)&lt;/script&gt; &amp; co" in html
    assert "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html


def test_mathml_is_sanitised() -> None:
    assert "<script" not in mathml(r"\text{<script>alert(1)</script>}")
    out = mathml(r"\href{javascript:alert(1)}{x} + \style{color:red}{y}")
    assert "javascript" not in out and "style=" not in out and "<mi>x</mi>" in out
    assert mathml("x & y").startswith('<code class="tex">x &amp; y')  # not XML: shown as code
    assert mathml(r"a^{").startswith('<code class="tex">')


def test_discrepancies_grouped_by_root_with_suggestion(tmp_path: Path) -> None:
    notes, claims = tiny_inputs(tmp_path)
    (notes / "tiny.txt").write_text(NOTE.replace("总和是 15", "总和是 16"), encoding="utf-8")
    html = build(run(notes, claims))
    section = html[html.index('id="discrepancies"'):html.index("</section>",
                                                                 html.index('id="discrepancies"'))]
    assert "root cause" in section and "tiny-mean" in section
    assert "<del>16</del> → <ins>15</ins>" in section
    assert 'class="mk n-discrepancy"' in html
    assert "fails" in html  # the gate line


def test_stale_claim_is_listed(tmp_path: Path) -> None:
    notes, claims = tiny_inputs(tmp_path)
    (notes / "tiny.txt").write_text(NOTE.replace("三个数", "四个数"), encoding="utf-8")
    html = build(run(notes, claims))
    problems = html[html.index('id="problems"'):]
    assert "stale" in problems[:2000] and "tiny-mean" in problems[:2000]


def has(page: str, text: str) -> bool:
    """``text in page``, as a call: a failure shows a truncated page, not 2 MB of it."""
    return text in page


def test_real_report_content(real_result: RunResult, real_html: str) -> None:
    html = real_html
    for name in real_result.notes:
        assert has(html, f"<h2>{real_result.note_path(name)}</h2>")
    assert html.count('<details class="claim ') == len(real_result.verdicts)
    assert html.count('class="mk n-known"') > 0  # the notes' pinned discrepancies are marked
    assert has(html, "heat map of A")  # the attention matrix beside the note's matrix
    assert has(html, "Symbolic steps") and has(html, "Coverage of the notes")
    # no network: nothing is loaded from anywhere, and there is no script at all
    assert not re.search(r"""(src|href)\s*=\s*["'](https?:)?//""", html)
    assert not has(html, "<script") and not has(html, "<link")


def test_write_is_atomic_and_deterministic(real_result: RunResult, real_html: str,
                                           tmp_path: Path) -> None:
    out = tmp_path / "r" / "index.html"
    size = write(real_result, out)
    # write builds the report again: its bytes equal to real_html's (a build of its own)
    # show that building twice in one process gives the same report
    assert out.read_bytes() == real_html.encode("utf-8") and size == out.stat().st_size
    assert [p.name for p in out.parent.iterdir()] == ["index.html"]  # no temporary left


BUILD_FROM_PICKLE = (
    "import pickle, sys\n"
    "from verifiers.report.html import build\n"
    "sys.stdout.buffer.write(build(pickle.load(open(sys.argv[1], 'rb'))).encode('utf-8'))\n")


def test_real_report_identical_across_hash_seeds(real_result: RunResult, real_html: str,
                                                 tmp_path: Path) -> None:
    """The same verdicts give the same bytes in interpreters with other hash seeds.

    (The verdicts themselves are the engine's; the whole command is run across seeds on
    small inputs below, where a run takes a second rather than a minute.)
    """
    import pickle

    saved = tmp_path / "result.pickle"
    saved.write_bytes(pickle.dumps(real_result))
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", BUILD_FROM_PICKLE, str(saved)], cwd=ROOT,
                              env=env, capture_output=True, timeout=300)
        assert proc.returncode == 0, proc.stderr.decode()
        assert proc.stdout == real_html.encode("utf-8"), f"bytes differ with seed {seed}"


def test_tiny_report_identical_across_hash_seeds(tmp_path: Path) -> None:
    notes, claims = tiny_inputs(tmp_path)
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"r{seed}.html"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-m", "verifiers", "report", "--notes", str(notes), "--claims",
             str(claims), "--out", str(out)], cwd=ROOT, env=env, capture_output=True,
            text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert f"wrote {out}" in proc.stdout
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_cli_report_bad_input(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "verifiers", "report", "--notes",
                           str(tmp_path / "missing"), "--out", str(tmp_path / "x.html")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "notes folder not found" in proc.stderr
    assert not (tmp_path / "x.html").exists()


def test_pytest_option_writes_the_report(pytester: pytest.Pytester) -> None:
    tiny_inputs(pytester.path)
    pytester.makefile(".toml", pyproject='[tool.notecheck]\nnotes = "notes"\nclaims = "claims"\n')
    result = pytester.runpytest("-p", "no:cacheprovider", "--notecheck-report=out/r.html")
    result.assert_outcomes(passed=1, xfailed=1)
    assert "notecheck: wrote out/r.html" in result.stdout.str()
    html = (pytester.path / "out" / "r.html").read_text(encoding="utf-8")
    assert html == build(run(pytester.path / "notes", pytester.path / "claims"))


def test_pytest_option_needs_the_table(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject="[tool.other]\nx = 1\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--notecheck-report=r.html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "[tool.notecheck]" in result.stderr.str()
    assert not (pytester.path / "r.html").exists()


# --- the browser ----------------------------------------------------------------------


def chromium_binary() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


HANG = 300  # seconds without a reply from the browser before a test gives up


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (fds 3 and 4)."""

    def __init__(self, binary: str, profile: Path, width: int = 1280, height: int = 900) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # in the child: the pipe ends become fds 3 (in) and 4 (out)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child_r, from_child_w)]
            for fd, target in zip(high, (3, 4), strict=True):  # dup2 clears close-on-exec
                os.dup2(fd, target)
                os.close(fd)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", f"--window-size={width},{height}",
             "--hide-scrollbars", "--no-first-run", "--disable-extensions",
             "--disable-background-networking", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, close_fds=False)  # the child keeps fds 3 and 4
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def _read(self, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                return None
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    # HANG: a bound on a hung browser, not a speed target: at load 14 a starting Chromium
    # took over 30 s to answer its first message and the test failed on time
    def send(self, method: str, timeout: float = HANG, **params: Any) -> dict[str, Any]:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if self.session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(max(0.0, deadline - time.monotonic()))
            if reply is None:
                raise TimeoutError(f"no reply to {method}")
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, timeout: float = HANG) -> dict[str, Any]:
        for ev in self.events:
            if ev.get("method") == method:
                self.events.remove(ev)
                return ev
        deadline = time.monotonic() + timeout
        while True:
            ev = self._read(max(0.0, deadline - time.monotonic()))
            if ev is None:
                raise TimeoutError(f"no {method}")
            if ev.get("method") == method:
                return ev
            self.events.append(ev)

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ev = self._read(left)
            if ev is not None:
                self.events.append(ev)

    def open_page(self) -> None:
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def evaluate(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                          awaitPromise=True)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"page script failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def click(self, x: float, y: float) -> None:
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      clickCount=1)

    def problems(self) -> list[str]:
        """Console messages, uncaught exceptions and browser log entries (warnings and up)."""
        out = []
        for ev in self.events:
            method, p = ev.get("method"), ev.get("params", {})
            if method == "Runtime.consoleAPICalled":
                out.append(f"console.{p['type']}: " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                details = p["exceptionDetails"]
                thrown = details.get("exception", {}).get("description", "")
                out.append(f"exception: {details.get('text')} {thrown}")
            elif method == "Log.entryAdded" and p["entry"]["level"] in ("warning", "error"):
                entry = p["entry"]
                out.append(f"log {entry['level']}: {entry['text']} {entry.get('url', '')}")
        return out

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)


@pytest.fixture
def browser(tmp_path: Path) -> Any:
    binary = chromium_binary()
    if binary is None:  # the README's test command installs it: a missing browser fails
        pytest.fail("no Chromium binary on PATH (chromium, chromium-browser, google-chrome): "
                    "install Debian's `chromium` (the README's test command does)")
    b = Browser(binary, tmp_path / "profile")
    try:
        b.open_page()
        yield b
    finally:
        b.close()


def load(b: Browser, url: str) -> None:
    b.send("Page.navigate", url=url)
    b.wait_event("Page.loadEventFired")
    b.drain(0.3)


def test_browser_catches_console_errors(browser: Browser, tmp_path: Path) -> None:
    """The console check below is not vacuous: a broken page is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><p>x</p><script>console.error("boom"); nope();</script>'
                   '<img src="missing.png">', encoding="utf-8")
    load(browser, bad.as_uri())
    found = "\n".join(browser.problems())
    assert "boom" in found and "nope is not defined" in found and "missing.png" in found


FIND_MARKER = """(() => {
  const m = [...document.querySelectorAll('a.mk.n-known')]
      .find(a => a.title.startsWith('known:'));
  if (!m) return null;
  m.scrollIntoView({block: 'center'});
  const r = m.getBoundingClientRect(), cs = getComputedStyle(m);
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {id: m.id, href: m.getAttribute('href'), text: m.textContent,
          x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height,
          visible: cs.visibility === 'visible' && cs.display !== 'none' && +cs.opacity > 0,
          onTop: hit === m || m.contains(hit), bg: cs.backgroundColor,
          inView: r.top >= 0 && r.bottom <= innerHeight};
})()"""

AFTER_CLICK = """(() => {
  const t = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (!t) return {hash: location.hash, found: false};
  const d = t.closest('details'), r = t.getBoundingClientRect();
  return {hash: location.hash, found: true, open: !!(d && d.open), claim: d && d.id,
          h: r.height, inView: r.top >= 0 && r.top < innerHeight,
          text: t.textContent.slice(0, 300)};
})()"""


def test_report_in_chromium(browser: Browser, real_result: RunResult, real_html: str) -> None:
    report = REPORTS / "index.html"
    # the session's report, written as ``write`` writes it (test_write_is_atomic_and_
    # deterministic shows that its bytes are real_html's): not a third build of the report
    write_output(report, real_html)
    browser.events.clear()
    load(browser, report.as_uri())
    assert browser.evaluate("document.title") == "notecheck report"
    assert browser.evaluate("document.querySelectorAll('section.note').length") == len(
        real_result.notes)
    browser.screenshot(REPORTS / "report.png")  # the summary, as a person first sees it
    marker = browser.evaluate(FIND_MARKER)
    assert marker is not None, "no known discrepancy is marked in the notes"
    assert marker["visible"] and marker["onTop"] and marker["inView"], marker
    assert marker["w"] > 0 and marker["h"] > 0, marker
    assert marker["bg"] not in ("rgba(0, 0, 0, 0)", "transparent"), marker  # coloured
    browser.drain(0.2)
    browser.screenshot(REPORTS / "report-marker.png")
    browser.click(marker["x"], marker["y"])
    browser.drain(0.5)
    after = browser.evaluate(AFTER_CLICK)
    assert after["hash"] == marker["href"], after
    assert after["found"] and after["open"] and after["h"] > 0 and after["inView"], after
    assert "known" in after["text"]
    browser.screenshot(REPORTS / "report-details.png")
    assert browser.problems() == []
