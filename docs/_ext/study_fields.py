"""What each field of a study file means, for the generated study-file reference.

The validator (``synth.study``, ``synth.machine``) holds which sections and fields exist, and the
``Study`` object a minimal study loads to holds their defaults; this table holds only what the code
cannot say: one Markdown sentence per field. The docs build refuses a field the validator accepts
and this table does not describe, and a description of a field the validator does not accept
(``toposynth_docs.study_fields_page``), so the page and the validator cannot drift apart.
"""

#: section ("" for the top level) -> field -> what it means (Markdown)
FIELDS: dict[str, dict[str, str]] = {
    "": {
        "name": "the study's name: the default output directory is `toposynth-NAME` (one folder of the working "
                "directory: `/`, `\\`, NUL and control characters in the name become `-`)",
        "seed": "seed of everything random in the study (random traffic, searches, simulations)",
        "description": "free text shown in the report",
        "machine": "the `[machine]` section: the machine every candidate must make, and budgets",
        "candidates": "the `[candidates]` section: the pool of topologies to rank",
        "traffic": "the `[traffic]` section: the demands the candidates carry",
        "physical": "the `[physical]` section: packaging, wires and pins",
        "ranking": "the `[ranking]` section: what the candidates are ranked by",
        "cross_check": "the `[cross_check]` section: winners re-solved exactly",
        "simulation": "the `[simulation]` section: winners simulated packet by packet",
        "dask": "the `[dask]` section: where `toposynth run` evaluates (not part of the results: it does "
                "not change the study's fingerprint)",
    },
    "machine": {
        "pes": "every candidate must have this many processing elements (`:c=K` on a spec concentrates K per "
               "router); other sizes are an error unless `compare_sizes`",
        "radix": "budget: prune candidates with more ports per router",
        "links": "budget: prune candidates with more links",
        "wire_length": "budget: prune candidates with more metres of wire (needs a packaging)",
        "compare_sizes": "keep candidates of other sizes than `pes`, each size ranked on its own",
        "max_length": "the longest link allowed: grid units between router coordinates, or metres of wire "
                      "under a packaging; a list sweeps it (one sub-study each)",
    },
    "candidates": {
        "specs": "topology spec strings ({ref}`families`), each one candidate",
        "sweep": "family x parameter lists, e.g. `{family = \"twisted\", shape = [\"8x4\"], t1 = [1, 2, 3]}`",
        "enumerate": "every connected graph: `{nodes = N, max_degree = D}` (N <= 10; optional `min_degree`, "
                     "`regular`)",
        "files": "your own graph files (GraphML, edge lists, graph6), relative to the study file",
        "max_degree": "prune candidates above this router degree",
        "hierarchy": "Blue Gene/L compositions: row graphs (8 nodes) x column graphs (4) x upper row and "
                     "column graphs (4), `enumerate:N:D` for every connected N-node graph of degree <= D",
        "search": "networks found by search for this machine, packaging and traffic, ranked with the rest: a "
                  "list of tables",
    },
    "traffic": {
        "pattern": "the demands: a pattern of the study's own, with its fields in this section, or any "
                   "{ref}`registered traffic pattern <traffic-patterns>` (`hotregion:fraction=0.5`; also spelled "
                   "`sim:NAME`); a list sweeps them (one sub-study each)",
        "count": "`random` / `local`: the number of demands; a list sweeps it",
        "shares": "`local`: the share of demands inside each packaging level, then across",
        "file": "`file`: a CSV of demands with the header `src,dst,amount`",
        "scales": "demand scales at which the latency objective is measured",
        "mapping": "`mixed`: the `synth.mapping` function placing the 2-D torus application's tasks, or "
                   "`anneal[:START]`; `app`: `id` (process p on PE p) or `anneal`",
        "alpha": "`mixed`: the share of each task's traffic to its logical neighbours",
        "app": "`app`: a NAS kernel skeleton, one process per PE, the bytes it sends between processes as "
               "demands",
        "app_class": "`app`: the NAS problem class",
    },
    "physical": {
        "packaging": "`none` (unit link capacities, latency 1 per hop), `bgl` (Blue Gene/L boards: flow in "
                     "wires, latency in ns) or `custom` (your `boards`)",
        "wiring": "`flexible` (the flow decides each link's wires) or `uniform` (resources split equally up "
                  "front), or a table per candidate: `{default = \"flexible\", \"torus:8x8x8\" = \"uniform\"}`",
        "blocks": "placement of lattice candidates in nested blocks, innermost first: "
                  "`[[1,1,2],[4,4,2],[8,8,8]]`",
        "connector_pins": "connector pins of every unit of a packaging level, e.g. `{node_card = 240}`; a "
                          "list sweeps it",
        "boards": "`custom`: the packaging levels, innermost first, each a table",
        "pins_per_wire": "`custom`: connector pins per wire (2: differential pairs)",
        "router_pins": "`custom`: pins of a router chip (unset: no limit)",
        "technology": "wire and router delays, each field optional",
    },
    "ranking": {
        "objective": "`capacity`, `latency` or `both` (the default is `both` when `[traffic] scales` is given, "
                     "else `capacity`)",
        "eps": "the certified relative gap of every flow (lambda within a factor 1 - eps of optimal)",
        "baseline": "a spec marked in the report (and simulated beside the winners)",
        "prune": "skip candidates whose cheap certified bound cannot beat the best so far",
        "lp_limit": "latency: the exact HiGHS LP where the search falls short, if it has at most this many "
                    "columns (0: never)",
        "cost": "the Pareto front's cost axis",
        "latency_model": "`linear` (router and wire delay per unit of flow, the same at every load) or "
                         "`queueing` (plus Kleinrock's wait on every channel: latency grows with load)",
        "service": "`queueing`: a packet's service time on one unit of capacity (1 hop; under a packaging a "
                   "256-byte packet on one wire, 1462.9 ns)",
        "variability": "`queueing`: squared coefficient of variation of the service time (1: M/M/1, 0: M/D/1)",
        "terminals": "`queueing`: also the wait of the PEs' own injection and ejection channels",
    },
    "cross_check": {
        "top": "how many winners are re-solved exactly with HiGHS",
    },
    "simulation": {
        "top": "how many winners (and the baseline) are simulated up to saturation (0: none)",
        "preset": "the simulator preset",
        "step": "the load step of the saturation search, phits/cycle per PE",
        "max_load": "the highest offered load, phits/cycle per PE",
        "routing": "the simulator's routing; `auto`: the preset's where the candidate supports it, else "
                   "`table`",
        "seeds": "each simulation with the seeds seed, seed + 1, ...: their mean and 95% interval",
    },
    "dask": {
        "scheduler": "a dask scheduler address `tcp://HOST:PORT`; `--scheduler` wins over it",
        "workers": "the size of a local dask cluster (no scheduler); `--jobs` wins over it",
    },
}

#: subtables of a field -> subfield -> what it means (Markdown)
SUBFIELDS: dict[str, dict[str, str]] = {
    "candidates.enumerate": {
        "nodes": "routers of every graph (at most 10)",
        "max_degree": "highest router degree",
        "min_degree": "lowest router degree",
        "regular": "every router has degree `max_degree`",
    },
    "candidates.hierarchy": {
        "rows": "row graphs: 8-node specs or `enumerate:8:D`",
        "columns": "column graphs: 4-node specs or `enumerate:4:D`",
        "upper_rows": "upper-level row graphs: 4-node specs or `enumerate:4:D`",
        "upper_columns": "upper-level column graphs: 4-node specs or `enumerate:4:D`",
        "placements": "row graphs placed as enumerated (`canonical`), at their minimum cut width "
                      "(`min-cutwidth`), or in every linear placement (`all`)",
        "limit": "the first K row graphs only",
    },
    "candidates.search": {
        "label": "the candidate's name in the ranking (default `search-K`)",
        "routers": "routers (default: `machine.pes`)",
        "degree": "network ports per router (default: `machine.radix` - 1)",
        "objective": "a search objective (default `physical` under a packaging, else `aspl`)",
        "weight": "the objective's latency share, where it takes one",
        "moves": "moves per restart",
        "time": "seconds per restart (instead of, or besides, `moves`)",
        "seed": "the search's seed (default: the study's)",
        "restarts": "independent restarts, the best kept",
        "symmetry": "search graphs with this symmetry group order (or `auto`)",
        "regular": "every router has exactly `degree` links",
        "start": "a spec to start from (its placement too, under a packaging)",
        "fixed": "a spec whose links are kept",
        "temperature": "the annealing's starting temperature",
        "grid": "routers on a chip's grid, e.g. `\"8x4\"` (with `max_length`)",
        "max_length": "the longest link allowed (default: `machine.max_length`)",
        "metric": "link length on the grid: `euclidean` or `manhattan`",
    },
}
