"""One chart on screen from the same SVG as the HTML report, with Save as PNG / SVG."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from sage_desk.core.export.charts import Chart
from sage_desk.gui.common import file_dialogs
from sage_desk.gui.common.widgets import export_target, remember_export

PNG_SCALE = 2  # PNGs at twice the SVG's size so they stay sharp in slides


def save_svg(svg: str, path: str | Path) -> Path:
    """Write the chart's SVG as a file."""
    target = Path(path)
    target.write_text(svg, encoding="utf-8")
    return target


def svg_to_image(svg: str, scale: float = PNG_SCALE) -> QImage:
    """Render the SVG into a white image `scale` times its own size."""
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    size = renderer.defaultSize() * scale
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def save_png(svg: str, path: str | Path, scale: float = PNG_SCALE) -> Path:
    """Render the chart through QSvgRenderer into a PNG file."""
    target = Path(path)
    # the stubs want the format as bytes, but PySide6 raises ValueError on b"PNG" and takes "PNG"
    if not svg_to_image(svg, scale).save(str(target), "PNG"):  # type: ignore[call-overload]
        raise OSError(f"could not write {target}")
    return target


class AspectSvgWidget(QSvgWidget):
    """A QSvgWidget whose height follows its width, so charts never squash."""

    def hasHeightForWidth(self) -> bool:  # Qt API
        return True

    def heightForWidth(self, width: int) -> int:  # Qt API
        size = self.renderer().defaultSize()
        return int(width * size.height() / size.width()) if size.width() else 0

    def sizeHint(self) -> QSize:  # Qt API
        size = self.renderer().defaultSize()
        return QSize(480, self.heightForWidth(480)) if size.width() else QSize(480, 240)


class ChartPanel(QFrame):
    """A chart with its title and buttons to save it as PNG or SVG."""

    saved = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("chartPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.chart: Chart | None = None
        self.title = QLabel()
        self.title.setObjectName("chartTitle")
        self.view = AspectSvgWidget()
        self.png_button = QPushButton("Save as PNG…")
        self.svg_button = QPushButton("Save as SVG…")
        self.png_button.clicked.connect(lambda: self._ask_and_save("png"))
        self.svg_button.clicked.connect(lambda: self._ask_and_save("svg"))
        self._layout()

    def _layout(self) -> None:
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.png_button)
        head.addWidget(self.svg_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 10)
        layout.addLayout(head)
        layout.addWidget(self.view, 0, Qt.AlignmentFlag.AlignTop)

    def set_chart(self, chart: Chart) -> None:
        """Show this chart."""
        self.chart = chart
        self.title.setText(chart.title)
        self.view.load(QByteArray(chart.svg.encode("utf-8")))
        self.view.updateGeometry()

    def save(self, path: str | Path) -> Path:
        """Save the chart; the file's suffix picks the format (.png or .svg)."""
        if self.chart is None:
            raise ValueError("no chart to save")
        target = Path(path)
        saved = save_png(self.chart.svg, target) if target.suffix.lower() == ".png" else save_svg(self.chart.svg, target)
        self.saved.emit(str(saved))
        return saved

    def _ask_and_save(self, kind: str) -> None:
        if self.chart is None:
            return
        name = f"{self.chart.key}.{kind}"
        path, _ = file_dialogs.save_file_name(self, f"Save {self.chart.title}", export_target(name), f"{kind.upper()} (*.{kind})")
        remember_export(path)
        if path:
            self.save(path if path.lower().endswith(f".{kind}") else f"{path}.{kind}")
