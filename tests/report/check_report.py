#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks `neurobench report` as a browser sees it.

Writes an HTML report of the fixture results files, has headless Chromium load it, and checks
the DOM Chromium built against the results files: every metric row and value per run, each
chart with its bars or points and their values, the labels; that the page made no network
request; and that a screenshot of it is a valid, non-blank PNG.

    check_report.py --cli build/dev/neurobench --fixtures tests/fixtures/report [--work DIR]

Standard library only. Exits 1 with a message on the first failed check.
"""

import argparse
import json
import math
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser

TIMEOUT_S = 120
FIXTURES = ["cnn_relu.json", "snn_lif.json", "cnn_relu_pruned.json"]


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def close(a, b):
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


# --- the results files --------------------------------------------------------------------


def flatten(metrics):
    """Metric.key -> number, None (failed) or "NaN"/"Infinity"/"-Infinity", as the report
    flattens them."""
    out = {}

    def walk(value, key):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{key}.{k}")
        else:
            out[key] = value

    for key, value in metrics.items():
        if not key.startswith("_"):
            walk(value, key)
    return out


# --- a small DOM from Chromium's --dump-dom output ----------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children = []
        self.text_parts = []

    def text(self):
        parts = list(self.text_parts)
        for child in self.children:
            parts.append(child.text())
        return "".join(parts)

    def classes(self):
        return self.attrs.get("class", "").split()

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag=None, cls=None, **attrs):
        for node in self.walk():
            if tag is not None and node.tag != tag:
                continue
            if cls is not None and cls not in node.classes():
                continue
            if any(node.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            yield node

    def by_id(self, ident):
        for node in self.walk():
            if node.attrs.get("id") == ident:
                return node
        return None


class DomBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, attrs, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.text_parts.append(data)


def parse_dom(html):
    builder = DomBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


# --- Chromium ------------------------------------------------------------------------------


def find_chromium(explicit):
    if explicit:
        check(shutil.which(explicit) is not None, f"--chromium {explicit}: not found")
        return shutil.which(explicit)
    for name in [os.environ.get("CHROMIUM"), "chromium", "chromium-browser"]:
        if name and shutil.which(name):
            return shutil.which(name)
    raise CheckFailed("chromium not found (looked for 'chromium' and 'chromium-browser' on PATH): "
                      "install it: scripts/setup does (Debian package 'chromium')")


def run_chromium(browser, work, url, extra):
    """Runs headless Chromium once; returns (stdout, netlog path). Fails after TIMEOUT_S."""
    profile = tempfile.mkdtemp(prefix="profile-", dir=work)
    netlog = os.path.join(profile, "netlog.json")
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", f"--user-data-dir={profile}",
               # Nothing may leave the machine: every host name fails to resolve.
               "--host-resolver-rules=MAP * ~NOTFOUND",
               f"--log-net-log={netlog}"] + extra + [url]
    # A session of its own, so that a hang kills Chromium's helper processes too.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise CheckFailed(f"chromium did not finish within {TIMEOUT_S} s: {' '.join(command)}")
    if process.returncode != 0:
        raise CheckFailed(f"chromium exited with status {process.returncode}:\n"
                          f"{err.decode(errors='replace')[-3000:]}")
    return out.decode("utf-8", errors="replace"), netlog


def page_requests(netlog):
    """URLs the page itself asked the network stack for (not Chromium's own background calls)."""
    with open(netlog, encoding="utf-8") as f:
        log = json.load(f)
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log.get("events", []):
        if names.get(event.get("type")) != "URL_REQUEST_START_JOB":
            continue
        params = event.get("params", {})
        # Requests made on behalf of a file:// page carry its origin in these keys.
        context = str(params.get("network_isolation_key", "")) + str(
            params.get("site_for_cookies", "")) + str(params.get("initiator", ""))
        if "file://" in context:
            urls.append(params.get("url", "?"))
    return urls


# --- PNG -----------------------------------------------------------------------------------


def decode_png(data):
    """(width, height, channels, rows): rows are bytes of 8-bit samples."""
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG (bad signature)")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        check(zlib.crc32(kind + body) & 0xFFFFFFFF == crc, f"PNG chunk {kind!r}: bad CRC")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    check(header is not None, "PNG without IHDR")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    check(depth == 8 and channels is not None and interlace == 0,
          f"unexpected PNG format: depth {depth}, colour type {colour}, interlace {interlace}")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    check(len(raw) == height * (stride + 1),
          f"PNG data is {len(raw)} bytes, expected {height * (stride + 1)}")
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + predictor) & 0xFF
        else:
            check(kind == 0, f"PNG row {y}: unknown filter type {kind}")
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


# --- the checks ----------------------------------------------------------------------------


def check_dom(dom, runs):
    labels = [label for label, _ in runs]
    flat = {label: flatten(values) for label, values in runs}

    # No script, no external resource of any kind.
    for node in dom.walk():
        check(node.tag not in {"script", "link", "img", "iframe", "object", "embed", "base"},
              f"the page has a <{node.tag}> element")
        for name, value in node.attrs.items():
            value = value or ""
            check(name not in {"src", "srcset", "xlink:href", "action", "formaction"},
                  f"<{node.tag}> has a {name} attribute: {value}")
            check(name != "href" or value.startswith("#"), f"<{node.tag}> links to {value}")
            check(not name.startswith("on"), f"<{node.tag}> has an event handler {name}")
    style = "".join(n.text() for n in dom.find_all("style"))
    check("url(" not in style and "@import" not in style, "the style sheet loads something")
    everything = dom.text() + json.dumps([n.attrs for n in dom.walk()])
    for scheme in ("http://", "https://", "file://"):
        check(scheme not in everything, f"the page mentions {scheme}")

    # Runs, in order, with their colours.
    summary = dom.by_id("summary")
    check(summary is not None, "no #summary")
    check([n.attrs["data-run"] for n in summary.find_all(cls="run-chip")] == labels,
          f"#summary does not list the runs {labels}")

    # The metrics table: one row per flattened key, one value per run.
    table = dom.by_id("metrics")
    check(table is not None and table.tag == "table", "no <table id=metrics>")
    header = [th.attrs.get("data-run") for th in table.find_all("th", cls="run")]
    check(header == labels, f"metrics table columns {header}, expected {labels}")
    rows = {tr.attrs["data-key"]: tr for tr in table.find_all("tr") if "data-key" in tr.attrs}
    keys = []
    for label in labels:
        keys += [k for k in flat[label] if k not in keys]
    missing = [k for k in keys if k not in rows]
    extra = [k for k in rows if k not in keys]
    check(not missing and not extra, f"metrics table: rows missing {missing}, unexpected {extra}")
    check(list(rows) == keys, "metrics table: rows not in order of first appearance")
    for key, tr in rows.items():
        check(next(tr.find_all("th")).text() == key, f"row {key}: wrong heading")
        for label in labels:
            cells = list(tr.find_all("td", cls="value", data_run=label))
            check(len(cells) == 1, f"row {key}: {len(cells)} cells for run {label}")
            cell, expected = cells[0], flat[label].get(key, "missing")
            if expected == "missing":
                check(cell.attrs["data-state"] == "missing", f"{key}/{label}: should be missing")
            elif expected is None:
                check(cell.attrs["data-state"] == "failed" and cell.text() == "failed",
                      f"{key}/{label}: should show failed")
            elif isinstance(expected, str):  # "NaN", "Infinity", "-Infinity"
                check(cell.attrs["data-state"] == "nonfinite" and
                      cell.attrs["data-value"] == expected and cell.text().strip() == expected,
                      f"{key}/{label}: should show {expected}")
            else:
                check(cell.attrs["data-state"] == "number" and
                      close(cell.attrs["data-value"], expected),
                      f"{key}/{label}: data-value {cell.attrs.get('data-value')}, expected "
                      f"{expected}")
                check(cell.text().strip() != "", f"{key}/{label}: empty cell")
        for label in labels[1:]:
            diffs = list(tr.find_all("td", cls="diff", data_run=label))
            check(len(diffs) == 1, f"row {key}: no difference column for {label}")
            a, b = flat[labels[0]].get(key), flat[label].get(key)
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                check(close(diffs[0].attrs["data-diff"], b - a),
                      f"{key}/{label}: difference {diffs[0].attrs.get('data-diff')}, "
                      f"expected {b - a}")
    accuracy = rows["ClassificationAccuracy"]
    worse = list(accuracy.find_all("td", cls="worse"))
    check(len(worse) == 2, "accuracy fell in both other runs: both differences should be 'worse'")

    environment = dom.by_id("environment")
    check(environment is not None, "no <table id=environment>")
    env_text = environment.text()
    for label, values in runs:
        for field in ("cpu", "libtorch", "git_commit", "date"):
            check(str(values["_environment"][field]) in env_text,
                  f"environment table lacks {field} of {label}")
    for key in ("timed_runs", "warmup_runs"):
        check(any(True for _ in environment.find_all("tr", data_key=key)),
              f"environment table lacks {key}")

    # (a) Activation sparsity by layer.
    section = dom.by_id("chart-sparsity")
    check(section is not None and "left-out" not in section.classes(), "no sparsity chart")
    bars = list(section.find_all("rect", cls="bar"))
    expected = {(label, k.split(".", 1)[1]): v for label in labels for k, v in flat[label].items()
                if k.startswith("ActivationSparsityByLayer.")}
    check(len(bars) == len(expected), f"sparsity chart: {len(bars)} bars, expected {len(expected)}")
    for bar in bars:
        key = (bar.attrs["data-run"], bar.attrs["data-layer"])
        check(key in expected and close(bar.attrs["data-value"], expected[key]),
              f"sparsity bar {key}: {bar.attrs.get('data-value')}")
        check(float(bar.attrs["height"]) > 0, f"sparsity bar {key} has no height")
    layer_labels = {n.text_parts[0] for n in section.find_all("text", cls="layer-label")}
    check(layer_labels == {layer for _, layer in expected},
          f"sparsity chart layer labels {sorted(layer_labels)}")
    legend = [n.attrs.get("data-run") for n in section.find_all(cls="legend-item")]
    check(legend == labels, f"sparsity legend {legend}, expected {labels}")
    check(any(True for _ in section.find_all("g", cls="y-axis")), "sparsity chart: no axis")

    # (b) Synaptic operations.
    section = dom.by_id("chart-operations")
    check(section is not None and "left-out" not in section.classes(), "no operations chart")
    bars = list(section.find_all("rect", cls="bar"))
    check(len(bars) == 3 * len(labels), f"operations chart: {len(bars)} bars")
    for bar in bars:
        key = f"SynapticOperations.{bar.attrs['data-op']}"
        check(close(bar.attrs["data-value"], flat[bar.attrs["data-run"]][key]),
              f"operations bar {bar.attrs['data-run']} {key}: {bar.attrs['data-value']}")
    legend = [n.text() for n in section.find_all(cls="legend-item")]
    check(legend == ["Effective_MACs", "Effective_ACs", "Dense"], f"operations legend {legend}")
    ticks = list(section.find_all("text", cls="tick-label"))
    check(len(ticks) >= 3, "operations chart: too few tick labels")

    # (c) Latency.
    section = dom.by_id("chart-latency")
    check(section is not None and "left-out" not in section.classes(), "no latency chart")
    glyphs = list(section.find_all("g", cls="latency-glyph"))
    check([g.attrs["data-run"] for g in glyphs] == labels, "latency chart: one glyph per run")
    for glyph in glyphs:
        label = glyph.attrs["data-run"]
        for stat in ("min", "median", "mean", "p90", "p99", "max"):
            check(close(glyph.attrs[f"data-{stat}"], flat[label][f"Latency.batch_{stat}_ms"]),
                  f"latency {label} {stat}: {glyph.attrs.get('data-' + stat)}")
        check(any(True for _ in glyph.find_all("rect", cls="box")), f"latency {label}: no box")
    check("ms per batch" in section.text(), "latency chart: no axis label in ms")

    # (d) Accuracy against operations.
    section = dom.by_id("chart-accuracy")
    check(section is not None and "left-out" not in section.classes(), "no accuracy chart")
    points = list(section.find_all("circle", cls="point"))
    check(len(points) == len(labels), f"accuracy chart: {len(points)} points")
    for point in points:
        label = point.attrs["data-run"]
        ops = flat[label]["SynapticOperations.Effective_MACs"] + \
            flat[label]["SynapticOperations.Effective_ACs"]
        check(close(point.attrs["data-value"], flat[label]["ClassificationAccuracy"]),
              f"accuracy point {label}: {point.attrs['data-value']}")
        check(close(point.attrs["data-x"], ops), f"accuracy point {label}: x {point.attrs['data-x']}")
    point_labels = [n.text() for n in section.find_all("text", cls="point-label")]
    check(sorted(point_labels) == sorted(labels), f"accuracy chart point labels {point_labels}")


def check_png(path):
    with open(path, "rb") as f:
        data = f.read()
    width, height, channels, rows = decode_png(data)
    check((width, height) == (1280, 2400), f"screenshot is {width}x{height}, expected 1280x2400")
    colours, ink = set(), 0
    step = channels
    for row in rows[::2]:
        for i in range(0, len(row), step * 2):
            pixel = row[i:i + min(channels, 3)]
            colours.add(pixel)
            if pixel != b"\xff\xff\xff"[:len(pixel)]:
                ink += 1
    sampled = (height // 2) * (width // 2)
    check(len(colours) >= 64, f"screenshot has only {len(colours)} distinct colours: blank?")
    check(ink > sampled * 0.01, f"screenshot is almost all white ({ink} of {sampled} pixels)")
    return len(colours)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True, help="the neurobench executable")
    parser.add_argument("--fixtures", required=True, help="folder of the fixture results files")
    parser.add_argument("--work", help="folder for the report, DOM and screenshot (kept)")
    parser.add_argument("--chromium", help="the Chromium executable (default: from PATH)")
    args = parser.parse_args()

    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="neurobench-report-"))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        browser = find_chromium(args.chromium)
        files = [pathlib.Path(args.fixtures) / name for name in FIXTURES]
        runs = []
        for path in files:
            with open(path, encoding="utf-8") as f:
                runs.append((path.stem, json.load(f)))
        report = work / "report.html"
        result = subprocess.run([args.cli, "report", *map(str, files), "-o", str(report)],
                                capture_output=True, text=True, timeout=TIMEOUT_S)
        check(result.returncode == 0, f"neurobench report failed ({result.returncode}):\n"
                                      f"{result.stderr}")

        dom_text, netlog = run_chromium(browser, work, report.as_uri(), ["--dump-dom"])
        (work / "dom.html").write_text(dom_text, encoding="utf-8")
        check("<table id=\"metrics\">" in dom_text, "chromium's DOM has no metrics table")
        check_dom(parse_dom(dom_text), runs)
        requests = page_requests(netlog)
        check(not requests, f"the page made network requests: {requests}")

        # The request detector itself must see a request when there is one.
        control = work / "control.html"
        control.write_text("<!DOCTYPE html><title>c</title>"
                           "<img src=\"http://neurobench.invalid/pixel.png\">", encoding="utf-8")
        _, control_log = run_chromium(browser, work, control.as_uri(), ["--dump-dom"])
        check(any("neurobench.invalid" in u for u in page_requests(control_log)),
              "the network-request check saw nothing on a page that loads an image: "
              "Chromium's net log format changed?")

        png = work / "report.png"
        run_chromium(browser, work, report.as_uri(),
                     [f"--screenshot={png}", "--window-size=1280,2400",
                      "--hide-scrollbars"])
        check(png.exists(), "chromium wrote no screenshot")
        colours = check_png(png)
    except CheckFailed as e:
        print(f"check_report: FAIL: {e}\n(files in {work})", file=sys.stderr)
        return 1
    print(f"check_report: OK: {len(runs)} runs; DOM, charts, no network requests; "
          f"screenshot with {colours} colours")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
