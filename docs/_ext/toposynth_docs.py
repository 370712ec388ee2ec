"""The reference pages that are generated, not written: a Sphinx extension, and the generators it runs.

When a build starts (``builder-inited``) it writes, into ``reference/generated/`` of the source
directory (not committed), pages made from the code itself, so none of them can drift from it:

- ``cli.md``: every command and option of ``toposynth``, walking the parser of ``synth.cli``
  (the help each option prints, its choices and default) as ``program`` / ``option`` entries,
  so other pages cross-reference options ({option}`toposynth flow --eps`) and a reference to an
  option that no longer exists fails the build;
- ``study-file.md``: every section and field the study validator accepts (``synth.study``,
  ``synth.machine``), with the default a minimal study loads to, the valid values where the
  code keeps them in a list, and a description from ``study_fields.py`` (the one hand-written
  part: the build fails when a field has no description or a description no field);
- one page per registry: families, traffic patterns, routings, router models, flow solvers,
  search objectives, simulator presets -- each entry's summary and declared capabilities;
- ``exit-codes.md`` from ``common.errors`` and ``size-limits.md`` from ``common.size`` and the
  limits the modules declare;
- ``api/``: one page per package of the public API, in the order and with the names of its
  ``__all__`` (as ``synth.api_index`` lists them), each name rendered by autodoc from its docstring.

The generators return text and import nothing of Sphinx: ``tests/test_docs.py`` runs them
without it. ``python docs/_ext/toposynth_docs.py OUTDIR`` writes the pages without a build.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

#: where the pages go, relative to the documentation's source directory
GENERATED = Path("reference") / "generated"

#: the line every generated page ends with
NOTE = ("Generated from the code when the site is built (`docs/_ext/toposynth_docs.py`); "
        "edit the code, not this page.")

#: usage lines are wrapped at this many characters (what the page's code blocks show without scrolling)
USAGE_WIDTH = 64

_MD_SPECIAL = re.compile(r"([\\*_<>\[\]|#~$])")


def md(text: str) -> str:
    """Plain text (help strings, summaries) as Markdown: backtick spans stay code, the characters
    Markdown would read as markup are escaped.

    >>> md("specs joined by * (a*b) in `x_y*z` or <tag>")
    'specs joined by \\\\* (a\\\\*b) in `x_y*z` or \\\\<tag\\\\>'
    """
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") and p.endswith("`") and len(p) > 1 else _MD_SPECIAL.sub(r"\\\1", p)
                   for p in parts)


def code(value: Any) -> str:
    """A value as inline code (backticks inside it taken care of)."""
    text = str(value)
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def comment_above(module: str, name: str) -> str:
    """The ``#:`` comment above the top-level assignment of ``name`` in ``module``, as one line
    ('' without one). The generated pages describe constants by what their source says of them."""
    source = inspect.getsource(importlib.import_module(module))
    lines = source.splitlines()
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            i, out = node.lineno - 2, []
            while i >= 0 and lines[i].lstrip().startswith("#:"):
                out.insert(0, lines[i].lstrip()[2:].strip())
                i -= 1
            return " ".join(out)
    raise LookupError(f"{module} assigns no {name} at its top level")


def _rst_to_md(text: str) -> str:
    """Docstring and comment markup (``x``, :role:`a.b`, :role:`~a.b`) as Markdown code spans.

    >>> _rst_to_md("``x`` and :func:`flows.solve`, :data:`~flows.SOLVERS`")
    '`x` and `flows.solve`, `SOLVERS`'
    """
    text = re.sub(r":[a-z:]+:`(~?)([^`]+)`",
                  lambda m: "`" + (m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2)) + "`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def doc_md(text: str) -> str:
    """Docstring or ``#:`` comment prose (reST) as Markdown: inline literals and roles as code spans,
    emphasis as it is (both write ``*x*``), a table cell's ``|`` escaped."""
    return md_cell(_rst_to_md(text))


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if not text or text.endswith((".", "!", "?")) else ".")


def _page(title: str, label: str, intro: str) -> list[str]:
    return [f"({label})=", "", f"# {title}", "", intro, ""]


# --------------------------------------------------------------------------------------------- CLI
def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of every subcommand, in the order ``--help`` lists them."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            out += [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return out


def _invocation(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    """How the option is written: ``--eps EPS``, ``--curve [N]``, ``spec``."""
    if not action.option_strings:
        return action.metavar if isinstance(action.metavar, str) else action.dest
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    args = formatter._format_args(action, action.dest.upper())
    return ", ".join(f"{o} {args}" for o in action.option_strings)


def _option_entry(action: argparse.Action, parser: argparse.ArgumentParser,
                  exclusive: dict[argparse.Action, list[argparse.Action]]) -> list[str]:
    formatter = parser._get_formatter()
    help_text = formatter._expand_help(action) if action.help else ""
    facts = []
    if action.required:
        facts.append("Required.")
    if action.choices is not None and not isinstance(action.choices, dict):
        facts.append("Choices: " + ", ".join(code(c) for c in action.choices) + ".")
    default = action.default
    # the default, where the help does not say it already
    if (default not in (None, argparse.SUPPRESS) and action.nargs != 0 and "default" not in help_text.lower()
            and not (isinstance(default, bool) and isinstance(action, argparse.BooleanOptionalAction))):
        facts.append(f"Default: {code(default)}.")
    if isinstance(action, argparse._AppendAction):
        facts.append("Repeatable.")
    for other in exclusive.get(action, []):
        facts.append(f"Not with {code(other.option_strings[0] if other.option_strings else other.dest)}.")
    body = _sentence(md(help_text)) if help_text else ""
    return [f"```{{option}} {_invocation(action, formatter)}", " ".join(x for x in [body, *facts] if x), "```", ""]


def _options(parser: argparse.ArgumentParser) -> list[str]:
    exclusive: dict[argparse.Action, list[argparse.Action]] = {}
    for group in parser._mutually_exclusive_groups:
        for a in group._group_actions:
            exclusive[a] = [b for b in group._group_actions if b is not a]
    out = []
    for group in parser._action_groups:
        actions = [a for a in group._group_actions
                   if a.help != argparse.SUPPRESS and not isinstance(a, (argparse._HelpAction,
                                                                         argparse._SubParsersAction))]
        if not actions:
            continue
        title = group.title or "options"
        out += [f"**{md(title[:1].upper() + title[1:])}**", ""]
        for a in actions:
            out += _option_entry(a, parser, exclusive)
    return out


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def cli_page() -> str:
    """Every command and option of ``toposynth`` (the parser of ``synth.cli``)."""
    from synth.cli import build_parser

    parser = build_parser()
    subs = _subcommands(parser)
    out = _page("Command line", "cli",
                f"{md(parser.description or '')} Every command prints its own help with `--help`; "
                "the commands and options below are what that help says, gathered in one place.")
    out += ["```text", _usage(parser), "```", ""]
    out += ["| command | what it does |", "|---|---|"]
    out += [f"| {{ref}}`{name} <cli-{name}>` | {md(help_)} |" for name, help_, _ in subs]
    out += ["", "```{program} toposynth", "```", ""]
    out += _options(parser)
    for name, help_, sub in subs:
        out += [f"(cli-{name})=", "", f"## toposynth {name}", ""]
        desc = sub.description or help_
        out += [_sentence(md(desc)), "", "```text", _usage(sub), "```", "", f"```{{program}} toposynth {name}",
                "```", ""]
        out += _options(sub)
    return "\n".join(out)


# ------------------------------------------------------------------------------------------ studies
def _toml(value: Any) -> str:
    """A default as TOML writes it ('' when unset)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return repr(value)


#: the Study attribute holding a field's loaded value, where it is not the field's own name
_STUDY_ATTRIBUTE = {
    ("traffic", "scales"): "scales", ("ranking", "service"): "queueing_service",
    ("ranking", "variability"): "queueing_variability", ("ranking", "terminals"): "queueing_terminals",
    ("cross_check", "top"): "cross_check_top", ("simulation", "top"): "sim_top",
    ("simulation", "preset"): "sim_preset", ("simulation", "step"): "sim_step",
    ("simulation", "max_load"): "sim_max_load", ("simulation", "routing"): "sim_routing",
    ("simulation", "seeds"): "sim_seeds",
}


def study_sections() -> dict[str, tuple[str, ...]]:
    """The sections ("" the top level) and fields the study validator accepts, in the order of
    ``synth.study``'s table of them (sorted within a section)."""
    from synth.machine import FIELDS as MACHINE_FIELDS
    from synth.study import _SECTIONS

    order = ["", "machine", *[s for s in _SECTIONS if s not in ("", "machine")]]
    out = {section: tuple(sorted(fields)) for section, fields in _SECTIONS.items()}
    # the top level: its plain fields, then its sections in the page's order
    out[""] = (*sorted(f for f in _SECTIONS[""] if f not in order), *[f for f in order if f in _SECTIONS[""]])
    out["machine"] = tuple(MACHINE_FIELDS)
    return {s: out[s] for s in order}


def study_defaults() -> dict[tuple[str, str], Any]:
    """(section, field) -> the value a study that does not give the field loads with (None: unset)."""
    from synth.study import Study, study_from_dict

    minimal = study_from_dict({"candidates": {"specs": ["ring:4"]}})
    empty = Study()   # the pool's fields: a study names at least one, each defaults to empty
    out: dict[tuple[str, str], Any] = {}
    for section, fields in study_sections().items():
        for f in fields:
            if section == "" and f in study_sections():
                continue
            if section in ("machine", "traffic", "physical") and (section, f) not in _STUDY_ATTRIBUTE:
                out[(section, f)] = getattr(getattr(minimal, section), f)
            elif section == "dask":
                out[(section, f)] = None
            else:
                source = empty if section == "candidates" else minimal
                out[(section, f)] = getattr(source, _STUDY_ATTRIBUTE.get((section, f), f))
    return out


def study_choices() -> dict[tuple[str, str], tuple[str, ...]]:
    """(section, field) -> the values the validator accepts, where the code lists them."""
    from flows import LOAD_MODELS
    from sim import NAS_KERNELS, PRESETS, ROUTINGS
    from sim.nas import NAS_CLASSES
    from synth.machine import COST_MEASURES
    from synth.study import OBJECTIVES
    from synth.workload import PACKAGINGS, PATTERNS, WIRINGS

    return {("traffic", "pattern"): PATTERNS, ("traffic", "app"): tuple(NAS_KERNELS),
            ("traffic", "app_class"): tuple(NAS_CLASSES), ("physical", "packaging"): PACKAGINGS,
            ("physical", "wiring"): WIRINGS, ("ranking", "objective"): OBJECTIVES,
            ("ranking", "cost"): tuple(COST_MEASURES), ("ranking", "latency_model"): tuple(LOAD_MODELS),
            ("simulation", "preset"): tuple(PRESETS), ("simulation", "routing"): tuple(ROUTINGS)}


def study_subfields() -> dict[str, tuple[str, ...]]:
    """Fields of the study's nested tables, as the validators list them."""
    from flows.physical import Board
    from synth.study import _HIER_POOLS
    from synth.study_search import SEARCH_ENTRY_FIELDS
    from synth.workload import _TECH

    return {"candidates.enumerate": ("nodes", "max_degree", "min_degree", "regular"),
            "candidates.hierarchy": (*(k for k, _ in _HIER_POOLS), "placements", "limit"),
            "candidates.search": tuple(SEARCH_ENTRY_FIELDS),
            "physical.boards": tuple(f.name for f in dataclasses.fields(Board)),
            "physical.technology": tuple(_TECH)}


def check_study_fields() -> list[str]:
    """What the descriptions of ``study_fields.py`` miss or describe in vain (empty: they match)."""
    from study_fields import FIELDS, SUBFIELDS

    problems = []
    for section, fields in study_sections().items():
        described = FIELDS.get(section, {})
        problems += [f"[{section or 'top level'}] {f}: no description" for f in fields if f not in described]
        problems += [f"[{section or 'top level'}] {f}: described, not a field" for f in described if f not in fields]
    problems += [f"section [{s}]: described, not a section" for s in FIELDS if s not in study_sections()]
    for table, fields in study_subfields().items():
        if table in SUBFIELDS:
            problems += [f"{table}.{f}: no description" for f in fields if f not in SUBFIELDS[table]]
            problems += [f"{table}.{f}: described, not a field" for f in SUBFIELDS[table] if f not in fields]
    return problems


def study_fields_page() -> str:
    """Every section and field of a study file."""
    from study_fields import FIELDS, SUBFIELDS
    from synth.workload import _TECH

    problems = check_study_fields()
    if problems:
        raise ValueError("docs/_ext/study_fields.py does not match the study validator: " + "; ".join(problems))
    defaults, choices, subfields = study_defaults(), study_choices(), study_subfields()
    out = _page("Study files", "study-file",
                "A study is a TOML file that `toposynth run` reads (`synth.load_study` in Python). Every "
                "field is checked when the study is loaded, and a bad one is one `toposynth: error:` line "
                "naming the field and its valid values; a field left out takes the default below (none said: "
                "unset). `toposynth run STUDY --check` validates a study and sizes it without running it.")
    for section, fields in study_sections().items():
        out += [f"(study-{section or 'top'})=", "", f"## {'[' + section + ']' if section else 'Top level'}", ""]
        out += ["| field | what it is |", "|---|---|"]
        for f in fields:
            if section == "" and f in study_sections():
                out.append(f"| {code(f)} | {md_cell(FIELDS[section][f])} ({{ref}}`below <study-{f}>`) |")
                continue
            text = _sentence(FIELDS[section][f])
            if (section, f) in choices:
                text += " One of " + ", ".join(code(c) for c in choices[(section, f)]) + "."
            if f"{section}.{f}" in subfields:
                text += f" Its fields: {{ref}}`below <study-{section}-{f}>`."
            if defaults[(section, f)] is not None:
                text += f" Default: {code(_toml(defaults[(section, f)]))}."
            out.append(f"| {code(f)} | {md_cell(text)} |")
        out.append("")
    out += ["## Nested tables", ""]
    for table, fields in subfields.items():
        section, _, f = table.partition(".")
        out += [f"(study-{section}-{f})=", "", f"### {code(table)}", ""]
        if table == "physical.boards":
            from flows.physical import Board

            out += [doc_md(" ".join(inspect.cleandoc(Board.__doc__ or "").split(">>>")[0].split())), ""]
            out += ["Fields: " + ", ".join(code(x) for x in fields) + ".", ""]
            continue
        descriptions = SUBFIELDS.get(table) or {k: _TECH[k] for k in fields if table == "physical.technology"}
        out += ["| field | what it is |", "|---|---|"]
        for x in fields:
            text = descriptions[x]
            if table == "candidates.search" and x != "label":
                option = "--irregular" if x == "regular" else "--" + x.replace("_", "-")
                text += f" (as {{option}}`toposynth search {option}`)"
            out.append(f"| {code(x)} | {md_cell(text)} |")
        out.append("")
    out += ["## The annotated example", "", "`studies/example.toml`, every section with its options in comments:",
            "", "```{literalinclude} ../../../studies/example.toml", ":language: toml", "```", ""]
    return "\n".join(out)


def md_cell(text: str) -> str:
    """Markdown already written for a table cell: only ``|`` needs escaping."""
    return re.sub(r"(?<!\\)\|", r"\\|", text)


# ---------------------------------------------------------------------------------------- registries
def _yes(flag: Any) -> str:
    return "yes" if flag else "no"


def _codes(values: Any) -> str:
    return ", ".join(code(v) for v in values)


def _entries(prefix: str, entries: list[tuple[str, str, list[tuple[str, str]]]]) -> list[str]:
    """A registry's entries: a table of names and summaries, then per entry a section (label
    ``PREFIX-NAME``, for links from other pages) with its summary and its declared facts."""
    out = ["| name | what it is |", "|---|---|"]
    out += [f"| {{ref}}`{name} <{prefix}-{name}>` | {md(summary)} |" for name, summary, _ in entries]
    out.append("")
    for name, summary, facts in entries:
        out += [f"({prefix}-{name})=", "", f"## {name}", "", _sentence(md(summary)), ""]
        out += [f"- {label}: {value}" for label, value in facts if value]
        out.append("")
    return out


def families_page() -> str:
    from candidates import families

    out = _page("Topology families", "families",
                "A topology is written as a spec string, `FAMILY:PARAM=VALUE:...` (`torus:8x8x8`, `rtt:a=8`); "
                "any spec may end in `:c=N` for N processing elements on every router that carries any. "
                "`toposynth families` prints this registry; `candidates.register` adds a family.")
    entries = []
    for f in families():
        c = f.capabilities
        facts = [("parameters", "; ".join(f"{code(k)}: {md(v)}" for k, v in f.parameters)),
                 ("example", code(f.example)),
                 ("coordinates", _yes(c.coordinates)),
                 ("routing records", f"the {code(c.records)} rule" if c.records else "no (routing tables)"),
                 ("ties between minimal records", _yes(c.ties)), ("twin-torus routings", _yes(c.twin)),
                 ("minimal routing is up/down", _yes(c.updown_minimal)), ("router groups", _yes(c.groups)),
                 ("its own routes", _codes(sorted(c.routes)) if c.routes else "none"),
                 ("its own Valiant intermediates", _yes(c.intermediates is not None)),
                 ("published figures beside `describe`'s", _yes(c.figures is not None)),
                 ("the simulator's `auto` routing", code(c.auto_routing) if c.auto_routing else "the default")]
        entries.append((f.name, f.summary, facts))
    return "\n".join(out + _entries("family", entries))


def patterns_page() -> str:
    from traffic import PATTERN_NEEDS, PATTERNS

    out = _page("Traffic patterns", "traffic-patterns",
                "One registry serves the simulator (`toposynth simulate --traffic`) and the flow solvers "
                "(`toposynth flow --traffic`, a study's `[traffic] pattern`): options are written "
                "`NAME:OPTION=VALUE`, positional ones by position (`random:128`). What a pattern may need of "
                f"the topology is one of {_codes(PATTERN_NEEDS)}. `traffic.register_pattern` adds one.")
    entries = [(p.name, p.summary,
                [("aliases", _codes(p.aliases)),
                 ("options", ", ".join(code(o) + (" (positional)" if o in p.positional else "") for o in p.options)),
                 ("needs", code(p.needs) if p.needs else "any topology"),
                 ("demands for the flow solvers", "its own sampled pairs" if p.demands else "the demand matrix")])
               for p in PATTERNS.values()]
    return "\n".join(out + _entries("pattern", entries))


def routings_page() -> str:
    from sim.routing import NEEDS, ROUTING_REGISTRY

    out = _page("Routings", "routings",
                "The simulator's routings (`toposynth simulate --routing`, a study's `[simulation] routing`). "
                f"What a routing may need of the topology is one of {_codes(NEEDS)}; which router model runs "
                "it is in {ref}`router-models`.")
    entries = [(r.name, r.summary,
                [("routers", _codes(r.routers)),
                 ("needs (simple router)", code(r.needs) if r.needs else "any connected graph"),
                 ("needs (iq router)", (code(r.iq_needs) if r.iq_needs else "any connected graph")
                  if "iq" in r.routers and r.name != "auto" else ""),
                 ("VC classes", f"one per hop, {r.class_hops} x the diameter" if r.class_hops else "")])
               for r in ROUTING_REGISTRY.values()]
    return "\n".join(out + _entries("routing", entries))


def router_models_page() -> str:
    import sim.engine  # noqa: F401 (registers the router models)
    from sim.routers import ROUTER_REGISTRY

    out = _page("Router models", "router-models",
                "A router model is one way of running the network cycle by cycle: `--router` (and "
                "`--switching` for the simple router) of `toposynth simulate` selects one.")
    entries = [(m.name, m.summary,
                [("selected by", f"`--router {m.router}`" + (f" `--switching {m.switching}`" if m.switching else "")),
                 ("per-pair latencies", _yes(m.pair_latency)), ("trace-driven workloads", _yes(m.traces)),
                 ("one simulation on several threads", _yes(m.threads)),
                 ("deadlock avoidance", md(m.fixed_deadlock) if m.fixed_deadlock else "as `--deadlock` chooses"),
                 ("routings", ", ".join(f"{{ref}}`{r} <routing-{r}>`" for r in m.routings)),
                 *[(f"refuses {code(r)}", md(why)) for r, why in m.refuses.items()]])
               for m in ROUTER_REGISTRY.values()]
    return "\n".join(out + _entries("router-model", entries))


def solvers_page() -> str:
    from flows import SOLVER_REGISTRY, SOLVERS

    out = _page("Flow solvers", "solvers",
                f"The solvers of `toposynth flow --solver` and `flows.solve(..., solver=...)`: {_codes(SOLVERS)}. "
                "`auto` takes, of the solvers that apply, the one of lowest rank whose conditions hold.")
    entries = []
    for s in SOLVER_REGISTRY.values():
        auto = ""
        if s.auto is not None:
            a = s.auto
            rules = [f"rank {a.rank}"]
            if a.below_routers is not None:
                rules.append(f"below {a.below_routers} routers")
            if a.min_eps is not None and a.min_eps > 0:
                rules.append(f"eps >= {a.min_eps:g}")
            if a.above_demands_per_router is not None:
                rules.append(f"more than {a.above_demands_per_router} demands per router")
            auto = ", ".join(rules)
        entries.append((s.name, s.summary,
                        [("objectives", _codes(s.objectives)), ("load models", _codes(s.load_models)),
                         ("certifies", code(s.certifies) + (" (exact at eps 0)" if s.exact_at_zero else "")),
                         ("needs", _codes(s.needs)), ("symmetries it exploits", _codes(s.symmetries)),
                         ("uniform traffic without building its demands", _yes(s.implicit_uniform)),
                         ("`auto` takes it", auto or "only by name")]))
    return "\n".join(out + _entries("solver", entries))


def search_objectives_page() -> str:
    from candidates.search.objectives import OBJECTIVES

    out = _page("Search objectives", "search-objectives",
                "What `toposynth search --objective` (and a study's `[candidates] search` entries) minimise.")
    entries = [(o.name, o.summary,
                [("takes a weight", f"yes (default {o.default_weight:g})" if o.weighted else "no"),
                 ("needs a packaging", _yes(o.needs_packaging)),
                 ("scores the even shortest-path split", _yes(o.needs_split)),
                 ("finalists certified by a flow solver", code(o.certify) if o.certify else "no")])
               for o in OBJECTIVES.values()]
    return "\n".join(out + _entries("objective", entries))


def presets_page() -> str:
    from sim import PRESETS, SimConfig

    base = SimConfig()
    out = _page("Simulator presets", "presets",
                "`toposynth simulate --preset` and a study's `[simulation] preset` start from one of these "
                "configurations (`sim.SimConfig`); options given on the command line override it. Each preset "
                "is listed by what it changes of the defaults.")
    out += ["| preset | differs from the defaults in |", "|---|---|"]
    for name, p in PRESETS.items():
        diff = [f"{code(f.name)} = {code(getattr(p, f.name))}" for f in dataclasses.fields(p)
                if f.name != "name" and getattr(p, f.name) != getattr(base, f.name)]
        out.append(f"| {code(name)} | {', '.join(diff) or 'nothing'} |")
    out += ["", "## The defaults", "", "| field | default |", "|---|---|"]
    out += [f"| {code(f.name)} | {code(getattr(base, f.name))} |" for f in dataclasses.fields(base)]
    out.append("")
    return "\n".join(out)


# ------------------------------------------------------------------------------- exit codes, limits
def exit_codes_page() -> str:
    from common import errors

    out = _page("Exit codes", "exit-codes",
                "Every command has one exit status per outcome (the `EXIT_` constants of `common.errors`). Bad "
                "input prints one line `toposynth: error: ...` saying what is wrong and how to fix it; a usage "
                "error names the command once (`toposynth: error: flow: argument --eps: ...`).")
    names = {getattr(errors, n): n for n in errors.__all__ if n.startswith("EXIT_") and n != "EXIT_CODES"}
    out += ["| constant | status | outcome | what it means |", "|---|---|---|---|"]
    for status, outcome in errors.EXIT_CODES.items():
        name = names[status]
        out.append(f"| {code(name)} | {status} | {md(outcome)} "
                   f"| {md_cell(_sentence(doc_md(comment_above('common.errors', name))))} |")
    out.append("")
    return "\n".join(out)


#: the limits the modules declare, in the order of the page: (module, constant)
LIMITS = (
    ("common.size", "LIMIT_ENV"),
    ("flows.size", "LARGE_SECONDS"),
    ("candidates.enumeration.graphs", "MAX_GRAPHS"),
    ("candidates.enumeration.graphs", "MAX_NODES"),
    ("candidates.enumeration.linear", "MAX_PLACEMENT_NODES"),
    ("candidates.enumeration.linear", "MAX_CUTWIDTH_NODES"),
    ("candidates.analytics.measures", "MAX_EXACT_BISECTION_SECONDS"),
    ("candidates.analytics.measures", "KL_LIMIT"),
    ("candidates.analytics.measures", "PE_PARTITION_LIMIT"),
    ("candidates.analytics.next_hops", "MAX_MASK_DEGREE"),
    ("candidates.isomorphism", "NAUTY_MAX_VERTICES"),
    ("flows.export", "MAX_PULP_COLUMNS"),
    ("flows.cyclic_symmetry", "SHIFT_LP_MAX_COLUMNS"),
    ("flows.cyclic_symmetry", "AUTO_SHIFT_MAX_COLUMNS"),
    ("synth.search", "CERTIFY_MAX_DEMANDS"),
    ("common.errors", "MAX_SEED"),
    ("sim.cli", "MAX_SEEDS"),
    ("common.defaults", "MAX_LOAD_POINTS"),
    ("sim.config", "MAX_CYCLES"),
    ("sim.config", "MAX_DELAY"),
    ("sim.config", "MAX_INT"),
    ("sim.engine", "MAX_POISSON_RATE"),
    ("sim.trace", "MAX_TRACE_INT"),
    ("synth.study", "MAX_SIM_SEEDS"),
    ("synth.study", "MAX_ENUMERATED"),
    ("synth.study", "MAX_WORKERS"),
    ("common.defaults", "SEARCH_MAX_MOVES"),
    ("common.defaults", "SEARCH_MAX_RESTARTS"),
    ("candidates.registry", "MAX_CONCENTRATION"),
    ("synth.cli", "MAX_CURVE_POINTS"),
    ("common.workers", "WORKER_BYTES"),
)


def _number(value: Any) -> str:
    if isinstance(value, float) and value >= 1e6:
        return f"{value:.3g}".replace("e+", "e")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:,g}" if isinstance(value, float) else f"{value:,}"
    return str(value)


def size_limits_page() -> str:
    out = _page("Size limits", "size-limits",
                "Every command estimates what a request will allocate before allocating it and refuses, in one "
                "line with exit status 2, what this machine cannot hold, saying the estimate and the limit.")
    doc = inspect.cleandoc(importlib.import_module("common.size").__doc__ or "").split(">>>")[0]
    out += ["## The memory limit", ""]
    out += [doc_md(" ".join(p.split())) + "\n" for p in doc.split("\n\n")[1:] if p.strip()]
    out += ["## The limits", "", "Besides memory, these limits are declared in the code:", ""]
    for module, name in LIMITS:
        value = getattr(importlib.import_module(module), name)
        out.append(f"- {code(name)} = {code(_number(value))} ({code(module)}): "
                   f"{_sentence(doc_md(comment_above(module, name)))}")
    out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------------------------- API
def _home(package: str, name: str, obj: Any) -> str:
    """The documented package that defines a public name (``package`` itself for its own names)."""
    from synth import api_index

    module = getattr(obj, "__module__", None) if (inspect.isclass(obj) or callable(obj)) else None
    if module is None:
        homes = [p for p in api_index.PACKAGES if p != package and name in getattr(importlib.import_module(p), "__all__", ())
                 and getattr(importlib.import_module(p), name) is obj]
        return homes[0] if homes and api_index.PACKAGES.index(homes[0]) < api_index.PACKAGES.index(package) else package
    return module.split(".")[0]


def api_pages() -> dict[str, str]:
    """``api/index.md`` and one reST page per package: prose, a table of its public names, each name's
    docstring rendered by autodoc."""
    from synth import api_index

    index = _page("Python API", "api",
                  "The public API, package by package, each floor before the ones that stand on it; the names are "
                  "each package's `__all__`. Every function and class has a docstring with an example, and the "
                  "test suite runs them all.")
    index += ["```{toctree}", ":maxdepth: 1", "", *api_index.PACKAGES, "```", ""]
    pages = {"index.md": "\n".join(index)}
    for package in api_index.PACKAGES:
        pkg = importlib.import_module(package)
        title = f"``{package}``"
        lines = [f".. _api-{package}:", "", title, "=" * len(title), "", f".. currentmodule:: {package}", "",
                 api_index.package_prose(package), "",
                 ".. list-table::", "   :header-rows: 1", "   :widths: auto", "",
                 "   * - name", "     - what it is"]
        rows = api_index.package_rows(package)
        for name, kind, description in rows:
            lines += [f"   * - :py:obj:`~{package}.{name}`", f"     - {description or ' '}"]
        lines.append("")
        for name, kind, description in rows:
            obj = getattr(pkg, name)
            home = _home(package, name, obj)
            if home != package and home in api_index.PACKAGES:
                # documented where it is defined; here a pointer to it
                directive = {"class": "py:class", "function": "py:function"}.get(kind, "py:data")
                lines += [f".. {directive}:: {package}.{name}", "   :no-index-entry:", "",
                          f"   The same as :py:obj:`{home}.{name}`.", ""]
            elif kind == "class":
                lines += [f".. autoclass:: {package}.{name}", "   :members:", ""]
            elif kind == "function":
                lines += [f".. autofunction:: {package}.{name}", ""]
            else:
                lines += [f".. py:data:: {package}.{name}", "", f"   {description}", ""]
                if kind == "registry":
                    lines += [f"   Its entries: {', '.join('``' + str(k) + '``' for k in obj)}.", ""]
                elif isinstance(obj, (str, int, float, tuple)) and len(repr(obj)) < 200:
                    lines += [f"   Value: ``{obj!r}``", ""]
        pages[f"{package}.rst"] = "\n".join(lines)
    return pages


# ---------------------------------------------------------------------------------------------- write
def pages() -> dict[str, str]:
    """Every generated page: path relative to ``reference/generated`` -> text."""
    out = {"cli.md": cli_page(), "study-file.md": study_fields_page(), "families.md": families_page(),
           "traffic-patterns.md": patterns_page(), "routings.md": routings_page(),
           "router-models.md": router_models_page(), "solvers.md": solvers_page(),
           "search-objectives.md": search_objectives_page(), "presets.md": presets_page(),
           "exit-codes.md": exit_codes_page(), "size-limits.md": size_limits_page()}
    out.update({f"api/{name}": text for name, text in api_pages().items()})
    # the note in italics; reST cannot nest a literal in emphasis, so there it is plain
    return {name: text.rstrip("\n") + "\n\n" + (f"*{NOTE}*" if name.endswith(".md") else NOTE.replace("`", "``")) + "\n"
            for name, text in out.items()}


def write_pages(outdir: Path) -> list[str]:
    """Write the pages under ``outdir``: a page whose text is unchanged is left alone (Sphinx rebuilds
    what changed only), a file no page owns any more is removed. Returns the pages written."""
    outdir = Path(outdir)
    wanted = pages()
    written = []
    for name, text in wanted.items():
        path = outdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(name)
    for path in sorted(outdir.rglob("*")):
        if path.is_file() and path.relative_to(outdir).as_posix() not in wanted:
            path.unlink()
    return written


_ITEM = re.compile(r"^([A-Za-z_]\w*(?:, [A-Za-z_]\w*)*) : (.*)$")


def attribute_lists(lines: list[str]) -> list[str]:
    """The docstrings' header-less attribute lists (``name, other : what they are``, continued on
    indented lines) as reST definition lists, the names as code; other lines as they are.

    >>> attribute_lists(["A thing.", "", "name, summary : its name", "run : how it runs,", "    on two lines",
    ...                  "", ">>> 1"])
    ['A thing.', '', '``name``, ``summary``', '    its name', '', '``run``', '    how it runs,', '    on two lines', '', '>>> 1']
    """
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _ITEM.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        if out and out[-1].strip():
            out.append("")
        out += [", ".join(f"``{n}``" for n in m.group(1).split(", ")), "    " + m.group(2)]
        i += 1
        while i < len(lines) and lines[i].startswith((" ", "\t")) and lines[i].strip():
            out.append("    " + lines[i].strip())
            i += 1
        out.append("")
        while i < len(lines) and not lines[i].strip():
            i += 1
    while out and not out[-1].strip() and (not lines or lines[-1].strip()):
        out.pop()
    return out


def _on_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    lines[:] = attribute_lists(lines)


def _on_builder_inited(app: Any) -> None:
    write_pages(Path(app.srcdir) / GENERATED)


def setup(app: Any) -> dict[str, Any]:
    # before autodoc reads anything: the pages must exist when Sphinx looks for its sources
    app.connect("builder-inited", _on_builder_inited, priority=100)
    # after napoleon (priority 500) has turned the numpydoc sections into fields
    app.connect("autodoc-process-docstring", _on_docstring, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    print("\n".join(write_pages(Path(sys.argv[1]))) or "(nothing changed)")
