"""The Dynamic Dialogue Graph: model, YAML I/O, validation and path enumeration."""

from sage_desk.core.sop.io import dump_graph, dumps_graph, load_graph, loads_graph
from sage_desk.core.sop.model import OUTCOMES, Edge, FieldSource, FieldSpec, Graph, Node, NodeKind
from sage_desk.core.sop.paths import Path, enumerate_paths
from sage_desk.core.sop.validate import validate_graph

__all__ = [
    "OUTCOMES",
    "Edge",
    "FieldSource",
    "FieldSpec",
    "Graph",
    "Node",
    "NodeKind",
    "Path",
    "dump_graph",
    "dumps_graph",
    "enumerate_paths",
    "load_graph",
    "loads_graph",
    "validate_graph",
]
