"""The pinning audit's table in the report. The fixture is a real `make audit-pinning` (three
servers, JDK 21.0.8 and 25.0.3, 8 requests at once a trap), its audit.json as written."""

from pathlib import Path

from labanalysis.audit import audit

FIXTURE = Path(__file__).parent / "fixtures" / "audit"


def test_the_matrix_is_subject_by_server_and_jdk():
    table = audit.matrix(audit.cells(FIXTURE))

    assert list(table.columns) == [f"{s} JDK {j}" for j in (21, 25) for s in ("coroutine", "vthread", "platform")]
    assert table.index[0] == "request paths, first pass" and table.index[-1] == "request paths, warm"
    # JEP 491 as the audit found it: synchronized pins on 21, not on 25; class-init on both.
    assert table.loc["synchronized", "vthread JDK 21"] == "pinned 8x, 367 ms"
    assert table.loc["lazy", "vthread JDK 25"] == "no"
    assert table.loc["class-init", "vthread JDK 25"].startswith("pinned 9x")
    assert (table[["coroutine JDK 21", "platform JDK 25"]] == "no").all().all()
    assert audit.violations(audit.cells(FIXTURE)) == []


def test_a_safe_path_that_pinned_is_named():
    cells = audit.cells(FIXTURE)
    fixed = next(c for c in cells if c["subject"] == "lazy-fixed" and c["server"] == "vthread" and c["jdk"] == 25)
    fixed.update(pinnedEvents=2, pinnedMs=100.0)

    assert audit.violations(cells) == ["lazy-fixed on vthread JDK 25"]
    assert audit.matrix(cells).loc["lazy-fixed", "vthread JDK 25"] == "MUST NOT PIN: pinned 2x, 100 ms"
