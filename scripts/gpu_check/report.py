"""The short results table that `gpu-check run` prints last."""

from __future__ import annotations

COLUMNS = ("op", "size", "check (max err)", "MLIR default us", "torch eager us",
           "torch.compile us", "floor us", "default/compile")


def _us(value) -> str:
    if value is None:
        return "n/a"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 1 else f"{value:.2f}"


def _check_cell(record: dict) -> str:
    check = record.get("check")
    if check is None:
        return "n/a"
    if record.get("kind") == "example":
        reference = check.get("reference")
        if not check.get("ok"):
            if reference is not None and not reference.get("ok"):
                return "FAIL cpu ref " + (reference.get("error") or f"{reference['max_abs_err']:.1e}")
            return "FAIL " + (check.get("error") or ("nan" if check.get("nan") else "runs differ"))
        if reference is not None:
            return f"ok cpu ref {reference['max_abs_err']:.1e}"
        return "ok (2 runs equal)"
    if "error" in check:
        return "FAIL " + check["error"][:40]
    return ("ok " if check["ok"] else "FAIL ") + f"{check.get('max_abs_err', float('nan')):.1e}"


def row(record: dict) -> list[str]:
    default = record.get("default_us")
    compiled = record.get("compile_us")
    ratio = f"{default / compiled:.1f}x" if default and compiled else "n/a"
    name = record["name"]
    if record.get("kind") == "example" and "/" in name:  # <example>/<64-hex region hash>
        head, region = name.rsplit("/", 1)
        name = f"{head}/{region[:12]}"
    return [name, record["size"], _check_cell(record), _us(default),
            _us(record.get("eager_us")), _us(compiled), _us(record.get("floor_us")), ratio]


def table(records: list[dict]) -> str:
    rows = [list(COLUMNS)] + [row(r) for r in records]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "-|-".join("-" * w for w in widths))
    return "\n".join(lines)
