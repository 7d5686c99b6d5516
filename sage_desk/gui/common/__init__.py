"""Pieces every screen shares: the error notifier, settings, small widgets and resources."""
