"""Similarity of submissions: winnowed fingerprints of each graded function's normalised syntax tree.

Flags for the instructor to look at, never penalties: nothing here changes a score.
"""
