"""Scoring a conversation: the rule engine and the judges, as a run finishes conversations or again later.

It sits above `rules` and `judge` (which know nothing of each other) and below the metrics:
`hooks` stores every source's verdicts as conversations finish, `rejudge` scores stored
conversations again with other judges.
"""
