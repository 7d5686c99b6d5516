"""Render the app icon (resources/icons/sage-desk.svg) to PNG for the .desktop entry."""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SVG = Path(__file__).resolve().parents[1] / "resources" / "icons" / "sage-desk.svg"


def render(out: Path, size: int) -> None:
    """Write the icon as a size x size PNG with a transparent background."""
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(SVG)).render(painter)
    painter.end()
    if not image.save(str(out)):
        raise SystemExit(f"could not write {out}")


if __name__ == "__main__":
    app = QGuiApplication(sys.argv[:1])
    render(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 256)
