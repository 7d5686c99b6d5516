"""Team review: which conversations a review queue holds, and in what order.

The queues themselves live in the store (`sage_desk.core.store.queues`); the label rule in
`sage_desk.core.store.consensus`; agreement between reviewers in
`sage_desk.core.calibration.human_agreement`.
"""
