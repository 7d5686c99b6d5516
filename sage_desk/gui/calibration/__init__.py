"""The Calibration screen: judge-versus-human agreement, disagreements, few-shot Calibrate, export."""

from sage_desk.gui.calibration.screen import CalibrationScreen

__all__ = ["CalibrationScreen"]
