"""The topology families' generators: one module each, its generator and its registry entries side by side.

``lattice`` (tori, meshes, rings, hypercubes, the rectangular and prismatic twisted tori, general
twisted tori), ``twin`` (n-dimensional twin tori), ``compose`` (Cartesian products and the Blue Gene/L
midplane compositions), ``fattree`` (fat trees and k-ary n-trees), ``hyperx`` (HyperX and the flattened
butterfly), ``dragonfly``, ``slimfly``, ``polarity`` (PolarFly and the affine polarity graph) and
``interposer`` (published networks-on-interposer). Each module registers its families when imported
(:func:`candidates.registry.register`); importing :mod:`candidates` imports them all. Graph files and
graph6 strings are :mod:`candidates.io`'s, searched graphs :mod:`candidates.search.family`'s.
"""
