"""Six follow-ups from a newcomer's hour and a message audit (session 139, helper h146)."""
from pathlib import Path

from theorykit import report


# 1. the report's summary badges: a zero count is neutral, a nonzero failed count stays red
def test_a_zero_failed_badge_is_not_red_and_a_nonzero_one_is():
    red = report._COLOURS["failed"]
    h = report.render_html(report.build_results("quick", {"s": {"claims": [
        {"claim": "c", "ours": "1", "agreement": "a", "verdict": "confirmed"}]}}), Path("."))
    badge = next(line for line in h.splitlines() if ">failed: 0</span>" in line)
    assert red not in badge and "background:#eaeef2" in badge
    # nothing red among the zero counts either (not borne out: 0 uses the same red)
    for v in ("partly", "not borne out", "n/a", "failed"):
        assert f'<span class="badge" style="background:#eaeef2;color:#57606a">{v}: 0</span>' in h
    assert '<span class="badge" style="background:#1a7f37">confirmed: 1</span>' in h
    h = report.render_html(report.build_results("quick", {}, failed={"x": {"error": "e"}}), Path("."))
    assert f'<span class="badge" style="background:{red}">failed: 1</span>' in h
