"""The SOP graph canvas: its node and edge items and the scene that holds them.

Shared by the SOP Editor (which adds editing gestures, commands and panels around it) and
Review's route view (which switches the gestures off and draws the agent's route over it).
"""
