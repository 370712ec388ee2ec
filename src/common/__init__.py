"""toposynth's ground floor: what every package uses and nothing domain-specific.

- :mod:`common.errors`: the base of every input error, the command line's exit statuses,
  one-line argument parsing;
- :mod:`common.size`: memory estimates and refusals before allocating;
- :mod:`common.paths`, :mod:`common.textfile`: output paths written atomically, text files read safely;
- :mod:`common.lazy`: package names that load on first use;
- :mod:`common.jitcache`: numba's on-disk cache kept in step with the kernels' sources;
- :mod:`common.compiletime`: numba's compile time kept apart from run time, and the notice before a cold compile;
- :mod:`common.workers`: how worker processes start (signals, threads);
- :mod:`common.defaults`: the defaults every layer shares;
- :mod:`common.tables`: results as tables (a pandas DataFrame, a notebook's HTML table);
- :mod:`common.figures`: what the figures share (plain-number log axes, points past saturation marked).

It imports nothing of ``candidates``, ``flows``, ``sim`` or ``synth``.
"""
