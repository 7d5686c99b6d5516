"""The Leaderboard screen: chosen runs' metrics per model (no composite) and the four charts."""

from sage_desk.gui.leaderboard.screen import LeaderboardScreen

__all__ = ["LeaderboardScreen"]
