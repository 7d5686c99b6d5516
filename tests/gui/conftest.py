"""GUI tests run offscreen, on real core models, through pytest-qt."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path

import pytest
from gui_helpers import dispose

from sage_desk.core.sop.io import dump_graph
from sage_desk.core.sop.model import Edge, FieldSource, FieldSpec, Graph, Node, NodeKind

DOMAIN_YAML = """name: shop
intent_field: Demand
tables: {orders: {key: order_id}}
context: {order: {table: orders}}
tools:
  refund: {kind: record, description: Refund an order, table: orders, key: order_id}
"""


def shop_graph() -> Graph:
    """A small valid graph: start -> decision -> action/end."""
    return Graph(
        name="shop",
        fields={"Demand": FieldSpec(source=FieldSource.USER, values=["refund", "status"])},
        nodes=[
            Node(id="start", kind=NodeKind.START, label="Customer writes in", pos=(0, 0)),
            Node(id="ask", kind=NodeKind.DECISION, label="What do they want?", field="Demand", pos=(0, 120)),
            Node(
                id="refund",
                kind=NodeKind.ACTION,
                label="Refund",
                tool="refund",
                args={"order_id": "=order.order_id"},
                pos=(-150, 260),
            ),
            Node(id="done", kind=NodeKind.END, label="Resolved", outcome="resolved", pos=(0, 400)),
        ],
        edges=[
            Edge(source="start", target="ask"),
            Edge(source="ask", target="refund", when="refund"),
            Edge(source="ask", target="done", when="status"),
            Edge(source="refund", target="done"),
        ],
    )


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    """A domain folder with domain.yaml and a valid sop.yaml."""
    folder = tmp_path / "shop"
    folder.mkdir()
    (folder / "domain.yaml").write_text(DOMAIN_YAML)
    dump_graph(shop_graph(), folder / "sop.yaml")
    return folder


@pytest.fixture
def editor(qtbot, shop_dir):
    """A shown SOP Editor with the shop graph open."""
    from sage_desk.gui.sop_editor import SopEditor

    widget = SopEditor()
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.load(shop_dir / "sop.yaml")
    widget.view.resetTransform()
    widget.view.centerOn(0, 200)
    yield widget
    dispose(widget)


@pytest.fixture(scope="session", autouse=True)
def _collect_before_qt_exits(qapp):
    """Collect leftover Qt wrappers while the application still exists (see `dispose`)."""
    yield
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    # The clipboard keeps the editor's QMimeData (copy/paste tests) in a Qt global that is freed
    # by a C exit handler after Python has gone: shiboken then touches a dead interpreter.
    qapp.clipboard().clear()
    for widget in qapp.topLevelWidgets():
        widget.close()
        widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
