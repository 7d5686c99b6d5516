"""The Review screen: audit conversations three ways at once and override verdicts from the keyboard."""

from sage_desk.gui.review.screen import ReviewScreen

__all__ = ["ReviewScreen"]
