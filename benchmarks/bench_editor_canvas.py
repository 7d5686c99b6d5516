"""How the SOP Editor's canvas copes with a big graph: load, auto-layout and panning, offscreen.

Run: `python benchmarks/bench_editor_canvas.py [--nodes 500] [--frames 120]`. It prints the time to
build the editor's items for a generated graph, to lay it out (one undo step), and the time per
frame while panning at 100% zoom and with the whole graph fitted in view (every item painted).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from sage_desk.core.sop.model import Edge, FieldSource, FieldSpec, Graph, Node, NodeKind


def generated_graph(size: int) -> Graph:
    """A tree of three-way decisions; every branch ends in an action then an end (about `size` nodes)."""
    fields = {"F": FieldSpec(source=FieldSource.USER, values=["a", "b", "c"])}
    nodes = [Node(id="start", kind=NodeKind.START, label="Customer writes in")]
    edges: list[Edge] = []
    slots: list[tuple[str, str | None]] = [("start", None)]  # (parent, value) still to fill
    for i in range(max(1, (size - 3) // 5)):  # nodes = 1 + D decisions + 2 * (2D + 1) leaves
        parent, value = slots.pop(0)
        nodes.append(Node(id=f"d{i}", kind=NodeKind.DECISION, label=f"Decision {i}", field="F"))
        edges.append(Edge(source=parent, target=f"d{i}", when=value))
        slots += [(f"d{i}", v) for v in ("a", "b", "c")]
    for i, (parent, value) in enumerate(slots):
        nodes += [
            Node(id=f"a{i}", kind=NodeKind.ACTION, label=f"Step {i}", tool="lookup_order"),
            Node(id=f"e{i}", kind=NodeKind.END, label="Done", outcome="resolved"),
        ]
        edges += [Edge(source=parent, target=f"a{i}", when=value), Edge(source=f"a{i}", target=f"e{i}")]
    return Graph(name="bench", fields=fields, nodes=nodes, edges=edges)


def frame_times(app, view, frames: int) -> list[float]:
    """Milliseconds per frame: scroll by 12 px and repaint the viewport synchronously."""
    times = []
    for i in range(frames):
        step = 12 if (i // 40) % 2 == 0 else -12
        t0 = time.perf_counter()
        view.pan_by(step, step // 2)
        view.viewport().repaint()
        app.processEvents()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--frames", type=int, default=120)
    args = parser.parse_args()
    from sage_desk.gui.app import create_application
    from sage_desk.gui.sop_editor import SopEditor

    app = create_application()
    graph = generated_graph(args.nodes)
    editor = SopEditor()
    editor.resize(1400, 860)
    editor.show()
    app.processEvents()
    t0 = time.perf_counter()
    editor._set_document(graph, None, None)
    app.processEvents()
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    editor.auto_layout()
    app.processEvents()
    layout = time.perf_counter() - t0
    print(f"graph: {len(graph.nodes)} nodes, {len(graph.edges)} edges, {len(editor.doc.paths())} paths")
    print(f"load (items + validation + paths): {load * 1000:.0f} ms")
    print(f"auto-layout (one undo step, items moved, fit): {layout * 1000:.0f} ms")
    editor.view.resetTransform()
    editor.view.centerOn(editor.scene.nodes["start"])
    for label, setup in (("100% zoom", lambda: None), ("whole graph in view", editor.view.fit)):
        setup()
        times = frame_times(app, editor.view, args.frames)
        p95 = sorted(times)[int(len(times) * 0.95) - 1]
        print(
            f"panning at {label}: median {statistics.median(times):.1f} ms/frame, p95 {p95:.1f} ms, zoom {editor.view.zoom():.2f}"
        )


if __name__ == "__main__":
    main()
