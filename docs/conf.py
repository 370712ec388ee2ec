"""Sphinx configuration of the documentation site.

Build it from the repository's root (the ``docs`` extra installs the toolchain)::

    python -m pip install ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

Pages are Markdown (MyST), like the README and docs/ARCHITECTURE.md; the API reference is rendered from
the docstrings (reST) by autodoc. The reference pages that can drift from the code are not
written by hand: the local extension ``_ext/toposynth_docs.py`` writes them from the command line's parser,
the registries, the study validator and the error and size modules into ``reference/generated/`` (not
committed) when a build starts.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
# a source checkout builds without an install too
sys.path.insert(0, str(HERE.parent / "src"))

project = "toposynth"
author = "the toposynth authors"
copyright = "the toposynth authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "toposynth_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    # the one-page API index of the repository (python -m synth.api_index); the site's API reference is
    # reference/generated/api, from the same list of public names
    "API.md",
]
templates_path = ["_templates"]

# MyST: ::: fences, definition lists (the generated option and field lists), heading anchors for links
# between pages (#a-heading)
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# the docstrings are prose with a few numpydoc sections (Parameters, Returns, Examples)
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_default_options = {"members": False}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
# a code block without a language is plain text (not Python)
highlight_language = "text"
# no typographic quotes and dashes: the pages are full of option names (--eps) and spec strings
smartquotes = False
# ``x`` in a docstring is code, as it reads in help(); `x` (the default role) too
default_role = "code"

html_theme = "pydata_sphinx_theme"
html_title = "toposynth"
# no "Show Source": a page with no sections then has no right-hand sidebar, and its tables the room
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = ["_static"]
html_css_files = ["toposynth.css"]
