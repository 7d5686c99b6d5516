"""Exports of run results: the leaderboard table as data, SVG charts and a self-contained HTML report."""
