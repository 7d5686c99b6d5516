"""The Runs screen: start runs in the background, watch them, cancel, resume; API keys in the keyring."""

from sage_desk.gui.runs.screen import RunsScreen

__all__ = ["RunsScreen"]
