"""The HTML report (`lowercheck diff --html FILE`): one self-contained file a reviewer would rather look at.

No network: styles inline, pictures drawn with matplotlib (Agg) and embedded as PNG data URIs. The
page holds the verdict and both sides; each finding with an anchor (`#finding-N`) and links to its
lines; both sides' source side by side with every finding at its line; per global buffer, a picture
of which program touches each element on each side at the smallest swept size (from the static
access relations; the elements the sides touch differently highlighted, a finding's witness
marked); the runs table; the roofline of both sides on the chosen GPU; the static checks with how
each is known. A small script checks, once the page has loaded, that every picture decoded
(`data-pictures-drawn` on the body): the browser test reads it.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

from lowercheck.findings import CODES, Finding, Severity

MAX_ELEMENTS = 1 << 14  # elements of one buffer drawn in an access picture; above, the picture is left out
_COLOURS = {Severity.ERROR: "#c62828", Severity.WARNING: "#b26a00", Severity.INFO: "#1565c0",
            Severity.INCONCLUSIVE: "#6a1b9a"}

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1b1b1b; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; }
.verdict { font-weight: bold; padding: 2px 8px; border-radius: 4px; color: white; }
.equivalent { background: #2e7d32; } .different { background: #c62828; } .inconclusive { background: #6a1b9a; }
.finding { border-left: 4px solid; padding: 4px 10px; margin: 10px 0; background: #fafafa; }
.finding .code { font-weight: bold; } .small { color: #555; font-size: 12px; }
.sources { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.src { font: 12px/1.35 ui-monospace, monospace; border: 1px solid #ddd; overflow-x: auto; }
.src div { white-space: pre; padding: 0 6px; } .src div.hit { background: #ffebee; }
.src .no { color: #999; display: inline-block; width: 3.5em; user-select: none; }
.badge { font-size: 11px; color: white; border-radius: 3px; padding: 0 4px; margin-left: 8px; text-decoration: none; }
table { border-collapse: collapse; font-size: 12px; } td, th { border: 1px solid #ddd; padding: 2px 6px; }
img { max-width: 100%; border: 1px solid #eee; }
"""
_SCRIPT = """
var lowercheckErrors = 0;
window.addEventListener('error', function () { lowercheckErrors += 1; });
window.addEventListener('load', function () {
  document.body.setAttribute('data-js-errors', String(lowercheckErrors));
  var images = Array.prototype.slice.call(document.images);
  var drawn = images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute('data-pictures', String(images.length));
  document.body.setAttribute('data-pictures-drawn', String(drawn));
});
"""


def render(report) -> str:
    """The page of one diff report (`lowercheck.diff.Report`)."""
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>lowercheck: {_e(report.verdict)}"
             f"</title><style>{_STYLE}</style><script>{_SCRIPT}</script></head><body>"]
    parts.append(f"<h1>lowercheck diff <span class='verdict {_e(report.verdict)}'>{_e(report.verdict)}</span></h1>")
    sides = {"source": report.source, "target": report.target}
    for name, side in sides.items():
        info = side.to_json()
        parts.append(f"<div><b>{name}</b> <code>{_e(info['path'])}:{_e(info['entry'])}</code> ({_e(info['language'])})"
                     f" <span class='small'>{_e(info.get('geometry') or ', '.join(info.get('operators') or []))}</span></div>")
    for note in report.notes:
        parts.append(f"<div class='small'>note: {_e(note)}</div>")
    parts.append(_findings(report.findings, sides))
    parts.append(_sources(report.findings, sides))
    parts.append(_pictures(report))
    parts.append(_heat_maps(report))
    parts.append(_runs(report))
    parts.append(_roofline(report))
    parts.append(_static(report))
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)


def write(report, path: str) -> None:
    Path(path).write_text(render(report))


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _side_of(finding: Finding, sides: dict) -> str | None:
    if finding.location is None:
        return None
    real = Path(finding.location.file).resolve()
    for name, side in sides.items():
        if Path(side.path).resolve() == real:
            return name
    return None


def _findings(findings: list[Finding], sides: dict) -> str:
    out = ["<h2>Findings</h2>"]
    if not findings:
        out.append("<p>No findings.</p>")
    for i, f in enumerate(findings):
        colour = _COLOURS[f.level]
        where = ""
        side = _side_of(f, sides)
        if f.location is not None:
            target = f"#src-{side}-{f.location.line}" if side else ""
            where = f"<a href='{target}'>{_e(f.location)}</a>: " if target else f"{_e(f.location)}: "
        title = CODES[f.code].title if f.code in CODES else ""
        out.append(f"<div class='finding' id='finding-{i}' style='border-color:{colour}'>{where}"
                   f"<span class='code' style='color:{colour}'>{f.level}[{_e(f.code)}]</span> "
                   f"<span class='small'>{_e(title)}</span><br>{_e(f.message)}")
        if f.witness:
            out.append(f"<div class='small'>witness: {_e(', '.join(f'{k}={v}' for k, v in f.witness.items()))}</div>")
        if f.evidence:
            out.append(f"<div class='small'>evidence: {_e(f.evidence)}</div>")
        if f.hint:
            out.append(f"<div><b>help:</b> {_e(f.hint)}</div>")
        out.append("</div>")
    return "\n".join(out)


def _sources(findings: list[Finding], sides: dict) -> str:
    out = ["<h2>Sources</h2><div class='sources'>"]
    for name, side in sides.items():
        try:
            lines = Path(side.path).read_text(errors="replace").splitlines()
        except OSError:
            lines = []
        marks: dict[int, list[tuple[int, Finding]]] = {}
        for i, f in enumerate(findings):
            if f.location is not None and _side_of(f, sides) == name:
                marks.setdefault(f.location.line, []).append((i, f))
        body = []
        for number, text in enumerate(lines, 1):
            badges = "".join(f"<a class='badge' style='background:{_COLOURS[f.level]}' href='#finding-{i}'>"
                             f"{_e(f.code)}</a>" for i, f in marks.get(number, []))
            hit = " class='hit'" if number in marks else ""
            body.append(f"<div id='src-{name}-{number}'{hit}><span class='no'>{number}</span>{_e(text)}{badges}</div>")
        out.append(f"<div><b>{name}</b> <code>{_e(side.path)}</code><div class='src'>{''.join(body)}</div></div>")
    out.append("</div>")
    return "\n".join(out)


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(figure)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _pictures(report) -> str:
    """Per global buffer, which program touches each element, source and target side by side."""
    try:
        maps = _touch_maps(report)
    except Exception as err:  # noqa: BLE001 - a picture we cannot draw is said, never fatal
        return f"<h2>Accesses</h2><p class='small'>not drawn: {_e(type(err).__name__)}: {_e(err)}</p>"
    if not maps:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out = ["<h2>Accesses</h2><p class='small'>Each element coloured by the program (block) that first touches it "
           f"at {_e(maps['sizes'])}; white: not touched; red outline: the elements the two sides touch from "
           "different programs or only on one side; x: a finding's witness.</p>"]
    for names, grids in _paired(report, maps["buffers"]):
        figure, axes = plt.subplots(1, 2, figsize=(9, 3.2))
        buffer = names[0] or names[1]
        differ = None
        if grids[0] is not None and grids[1] is not None and grids[0].shape == grids[1].shape:
            differ = (np.isnan(grids[0]) != np.isnan(grids[1]))
        for ax, name, grid, shown in zip(axes, ("source", "target"), grids, names):
            ax.set_title(f"{shown or '-'} ({name})", fontsize=10)
            if grid is None:
                ax.text(0.5, 0.5, "not accessed", ha="center", va="center")
                ax.set_axis_off()
                continue
            ax.imshow(grid, cmap="viridis", interpolation="nearest", aspect="auto")
            if differ is not None and differ.any():
                ys, xs = np.nonzero(differ)
                ax.scatter(xs, ys, s=6, facecolors="none", edgecolors="red", linewidths=0.6)
            extents = maps["extents"].get(shown or "", [grid.shape[1]])
            for point in maps["witness"].get(shown, []) if shown else []:
                if len(point) == 1:  # a flat index over the buffer
                    row, col = divmod(point[0], max(extents[-1], 1))
                else:
                    row, col = _fold(point[:-1], extents[:-1]), point[-1]
                ax.scatter([col], [row], marker="x", color="red", s=40)
        out.append(f"<div><img alt='accesses of {_e(buffer)}' src='{_png(figure)}'></div>")
    return "\n".join(out)


def _paired(report, buffers: dict[str, dict[str, Any]]) -> list[tuple[tuple[str | None, str | None], list]]:
    """The buffers of the two sides paired as the diff pairs them: the k-th input with the k-th input,
    the k-th output with the k-th output (a written pointer with a returned tensor)."""
    def by_role(side) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for p in side.to_json()["params"]:
            if p.get("kind") == "buffer":
                found.setdefault("in" if p["role"] == "in" else "out", []).append(p["name"])
        return found

    source, target = by_role(report.source), by_role(report.target)
    pairs = []
    for role in ("in", "out"):
        names_s, names_t = source.get(role, []), target.get(role, [])
        for k in range(max(len(names_s), len(names_t))):
            a = names_s[k] if k < len(names_s) else None
            b = names_t[k] if k < len(names_t) else None
            grids = [buffers.get(a, {}).get("source") if a else None, buffers.get(b, {}).get("target") if b else None]
            if any(g is not None for g in grids):
                pairs.append(((a, b), grids))
    return pairs


def _touch_maps(report) -> dict[str, Any] | None:
    """{"sizes": ..., "buffers": {buffer: {side: 2-D array of first program ids, NaN untouched}}, "witness": ...}."""
    import numpy as np

    from lowercheck.compare import accesses as relations

    # the largest swept size whose buffers fit a picture (the smallest often has one element)
    candidates = [dict(r.sizes) for r in report.runs] or [dict(getattr(report, "traffic_sizes", {}) or {})]
    fitting = [c for c in candidates if c and np.prod(list(c.values())) <= MAX_ELEMENTS]
    sizes = max(fitting, key=lambda c: np.prod(list(c.values()))) if fitting else (candidates[0] if candidates else {})
    if not sizes:
        return None
    result: dict[str, Any] = {"sizes": ", ".join(f"{k}={v}" for k, v in sizes.items()), "buffers": {}, "witness": {},
                              "extents": {}}
    for name in ("source", "target"):
        side = getattr(report, name)
        module = side.accesses
        if module is None or side.lower_at is not None:
            continue
        built = relations.build(module, sizes, list(sizes))
        for access in built.accesses:
            if access.space != "global":
                continue
            picture = result["buffers"].setdefault(access.buffer, {})
            points = _points(access.relation)
            if points is None:
                continue
            grid = picture.get(name)
            for program, coords in points:
                coords = coords if len(coords) >= 2 else (0, *coords)
                if grid is None:
                    grid = {}
                grid[coords] = min(grid.get(coords, program), program)
            if grid is not None:
                picture[name] = grid
    for buffer, per_side in list(result["buffers"].items()):
        cells = [c for g in per_side.values() for c in g]
        if not cells:
            del result["buffers"][buffer]
            continue
        # leading coordinates folded row-major into the picture's rows
        extents = [max(c[d] for c in cells if len(c) > d) + 1 for d in range(max(len(c) for c in cells))]
        result["extents"][buffer] = extents
        rows, cols = int(np.prod(extents[:-1])), extents[-1]
        for name, cells_of in per_side.items():
            array = np.full((rows, cols), np.nan)
            ranks = {p: i for i, p in enumerate(sorted(set(cells_of.values())))}  # programs in launch order
            for coords, program in cells_of.items():
                array[_fold(coords[:-1], extents[:-1]), coords[-1]] = ranks[program]
            per_side[name] = array
    for finding in report.findings:  # an element (coordinates) or a flat index the finding names
        witness = finding.witness if isinstance(finding.witness, dict) else {}
        element, index = witness.get("element"), witness.get("index")
        point = (tuple(element) if isinstance(element, list) and element and all(isinstance(v, int) for v in element)
                 else (index,) if isinstance(index, int) else None)
        if finding.buffer and point is not None:
            result["witness"].setdefault(finding.buffer, []).append(point)
    return result if result["buffers"] else None


def _fold(leading: tuple[int, ...], extents: list[int]) -> int:
    """The row of leading coordinates folded row-major (a 1-D buffer has the single row 0)."""
    row = 0
    for value, extent in zip(leading, extents):
        row = row * extent + value
    return row


def _points(relation) -> list[tuple[int, tuple[int, ...]]] | None:
    """(linear program id, element coordinates) of every point of an access relation, or None when
    there are more than MAX_ELEMENTS."""
    import islpy as isl

    domain_dims = relation.dim(isl.dim_type.in_)
    projected = relation.project_out(isl.dim_type.in_, 3, domain_dims - 3) if domain_dims > 3 else relation
    wrapped = projected.wrap()
    count = wrapped.count_val().to_python() if hasattr(wrapped, "count_val") else None
    if count is not None and count > MAX_ELEMENTS * 4:
        return None
    found: list[tuple[int, tuple[int, ...]]] = []
    total = wrapped.dim(isl.dim_type.set)

    def visit(point) -> None:
        values = [point.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(total)]
        grid, coords = values[:3], tuple(values[3:])
        found.append((grid[0] + 65536 * (grid[1] + 65536 * grid[2]), coords))

    wrapped.foreach_point(visit)
    return found if len(found) <= MAX_ELEMENTS * 4 else None


def _heat_maps(report) -> str:
    """For each output that mismatched, the error over the output in its first mismatching run."""
    shown: dict[str, tuple] = {}
    for run in report.runs:
        for output in run.outputs:
            if output.error_map is not None and output.name not in shown:
                shown[output.name] = (run, output.error_map)
    if not shown:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out = ["<h2>Where the values differ</h2>"]
    for name, (run, (diff, mask, pattern)) in shown.items():
        figure, axes = plt.subplots(1, 2, figsize=(9, 3.2))
        image = axes[0].imshow(np.log10(diff + 1e-30).clip(min=-12), cmap="magma", interpolation="nearest",
                               aspect="auto")
        axes[0].set_title(f"log10 |target - source| of {name}", fontsize=10)
        figure.colorbar(image, ax=axes[0])
        axes[1].imshow(mask, cmap="Reds", interpolation="nearest", aspect="auto", vmin=0, vmax=1)
        axes[1].set_title("elements beyond the tolerance", fontsize=10)
        sizes = ", ".join(f"{k}={v}" for k, v in run.sizes.items())
        out.append(f"<div class='small'>`{_e(name)}` at {_e(sizes)} ({_e(run.inputs)} inputs): {_e(pattern)}</div>"
                   f"<div><img alt='error of {_e(name)}' src='{_png(figure)}'></div>")
    return "\n".join(out)


def _runs(report) -> str:
    if not report.runs:
        return ""
    from lowercheck.report.terminal import RUN_COLUMNS, run_cells

    rows = ["<h2>Differential runs</h2><table><tr>" + "".join(f"<th>{_e(c)}</th>" for c in RUN_COLUMNS) + "</tr>"]
    for run in report.runs:
        cells = run_cells(run.to_json())
        style = "" if run.status == "ok" else " style='background:#ffebee'"
        rows.append(f"<tr{style}>" + "".join(f"<td>{_e(cells[c])}</td>" for c in RUN_COLUMNS) + "</tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _roofline(report) -> str:
    cost = getattr(report, "cost", None)
    if cost is None or not cost.sides:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    target = cost.target
    peak = target.peak_flops(cost.dtype if cost.dtype in ("fp32", "tf32", "fp16", "bf16") else "fp32") or target.bf16_flops
    bandwidth = target.hbm_bytes_per_s
    figure, ax = plt.subplots(figsize=(6, 3.6))
    intensities = [max(s.intensity, 1e-3) for s in cost.sides.values()]
    xs = np.logspace(np.log10(min(intensities + [0.01]) / 4), np.log10(max(intensities + [peak / bandwidth]) * 4), 200)
    ax.loglog(xs, np.minimum(peak, bandwidth * xs), color="black", label=f"{target.name} roofline")
    for (name, side), colour in zip(cost.sides.items(), ("#1565c0", "#c62828")):
        x = max(side.intensity, 1e-3)
        achieved = side.flops / side.floor_s if side.floor_s > 0 else 0.0
        ax.scatter([x], [max(achieved, 1.0)], color=colour, label=f"{name}: {side.bound}-bound floor", zorder=3)
    ax.set_xlabel("arithmetic intensity (FLOP / byte)")
    ax.set_ylabel("FLOP/s at the floor")
    ax.legend(fontsize=8)
    sizes = ", ".join(f"{k}={v}" for k, v in cost.sizes.items())
    lines = "".join(f"<div class='small'>{_e(line)}</div>" for line in cost.lines())
    return f"<h2>Roofline ({_e(sizes)})</h2><img alt='roofline' src='{_png(figure)}'>{lines}"


def _static(report) -> str:
    if not report.static_checks:
        return ""
    rows = ["<h2>Static checks</h2><table><tr><th>code</th><th>check</th><th>how it is known</th><th>detail</th></tr>"]
    for check in report.static_checks:
        rows.append(f"<tr><td>{_e(check.code)}</td><td>{_e(check.title)}</td><td>{_e(check.status)}</td>"
                    f"<td>{_e(check.detail)}</td></tr>")
    rows.append("</table>")
    return "\n".join(rows)
