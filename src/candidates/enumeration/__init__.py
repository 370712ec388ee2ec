"""Enumerating candidates: every connected graph of a size and degree (``graphs``, through nauty's
canonical augmentation) and every linear placement of a small graph with its cut width (``linear``).
"""
